-- UseExternalEmojis (1<<41) joins the permissions every member starts
-- with, in every server that exists, as the reference's branch adding the
-- flag does: a server keeps allowing what it allowed before.
UPDATE servers SET data = json_set(data, '$.default_permissions',
	coalesce(json_extract(data, '$.default_permissions'), 0) | 2199023255552);
