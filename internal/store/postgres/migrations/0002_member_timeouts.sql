-- Timeouts of members who left a server while timed out, so that leaving
-- and joining again does not lift them. Rows are taken back on rejoin.
CREATE TABLE member_timeouts (
	server_id TEXT NOT NULL,
	user_id   TEXT NOT NULL,
	until     BIGINT NOT NULL,
	PRIMARY KEY (server_id, user_id)
);
