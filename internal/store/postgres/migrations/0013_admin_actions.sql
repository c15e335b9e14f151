-- The instance's own audit log: what operators did through the admin API
-- and `ermine admin`. The entry is the JSON document in data; target is
-- the id acted on, for a user's or a server's page.
CREATE TABLE admin_actions (
	id     TEXT PRIMARY KEY,
	target TEXT NOT NULL,
	data   TEXT NOT NULL
);
CREATE INDEX admin_actions_target ON admin_actions (target, id);
