-- UseExternalEmojis (1<<41) joins the permissions every member starts
-- with, in every server that exists, as the reference's branch adding the
-- flag does: a server keeps allowing what it allowed before.
UPDATE servers SET data = jsonb_set(data::jsonb, '{default_permissions}',
	to_jsonb(coalesce((data::jsonb ->> 'default_permissions')::bigint, 0) | 2199023255552))::text;
