-- Running an instance: safety reports an operator reviews, the messages
-- of one author (exports and wipes), and events written by the admin
-- command for a running node to publish.

-- Reports are found by who filed them about what, and by status; one
-- open report per reporter per item.
ALTER TABLE reports ADD COLUMN author_id TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN content_id TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN status TEXT NOT NULL DEFAULT 'Created';
CREATE UNIQUE INDEX reports_open ON reports (author_id, content_id) WHERE status = 'Created';
CREATE INDEX reports_status ON reports (status, id);

CREATE INDEX messages_author ON messages (author_id, id);

-- Uploads are found by who uploaded them (user exports).
ALTER TABLE files ADD COLUMN uploader_id TEXT NOT NULL DEFAULT '';
UPDATE files SET uploader_id = COALESCE((data::jsonb)->>'uploader_id', '');
CREATE INDEX files_uploader ON files (uploader_id, id);

-- Frames the admin command could not publish itself (one node on the
-- in-process bus): the running node takes them out and publishes them.
CREATE TABLE relay_events (
	id    BIGSERIAL PRIMARY KEY,
	topic TEXT NOT NULL,
	frame BYTEA NOT NULL
);
