-- Audit log of moderation actions per server (reference 0.14.0). The
-- entry is the JSON document in data; the columns are what queries
-- filter and order by: the acting user, the action type and the id of
-- the object acted on.
CREATE TABLE audit_logs (
	id        TEXT PRIMARY KEY,
	server_id TEXT NOT NULL,
	user_id   TEXT NOT NULL,
	type      TEXT NOT NULL,
	target    TEXT NOT NULL,
	data      TEXT NOT NULL
);
CREATE INDEX audit_logs_server ON audit_logs (server_id, id);
