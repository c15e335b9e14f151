-- Voice: who is connected to which voice channel (one row per user and
-- channel, the state clients see as the document), and each channel's
-- call: its LiveKit node, call_started message and ring list. Kept in
-- the store so every node shares it and it survives a restart.
CREATE TABLE voice_participants (
	channel_id TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	server_id  TEXT,
	data       TEXT NOT NULL,
	PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX voice_participants_user ON voice_participants (user_id);
CREATE INDEX voice_participants_server ON voice_participants (server_id);

CREATE TABLE voice_calls (
	channel_id TEXT PRIMARY KEY,
	data       TEXT NOT NULL
);
