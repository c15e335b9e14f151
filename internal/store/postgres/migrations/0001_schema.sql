-- Ermine schema for PostgreSQL (the same tables as the SQLite schema). Every table keeps the object as a JSON
-- document in data, plus the columns it is found, ordered and kept
-- unique by; those columns are rewritten from the document on each write.
-- Times are integer milliseconds since the epoch.

CREATE TABLE accounts (
	id               TEXT PRIMARY KEY,
	email_normalised TEXT NOT NULL UNIQUE,
	verify_token     TEXT UNIQUE,
	reset_token      TEXT UNIQUE,
	delete_token     TEXT UNIQUE,
	delete_after     BIGINT,
	data             TEXT NOT NULL
);
CREATE INDEX accounts_delete_after ON accounts (delete_after) WHERE delete_after IS NOT NULL;

CREATE TABLE mfa_tickets (
	id         TEXT PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	account_id TEXT NOT NULL,
	data       TEXT NOT NULL
);
CREATE INDEX mfa_tickets_account ON mfa_tickets (account_id);

CREATE TABLE registration_invites (
	code       TEXT PRIMARY KEY,
	created_at BIGINT NOT NULL,
	data       TEXT NOT NULL
);

CREATE TABLE sessions (
	id      TEXT PRIMARY KEY,
	user_id TEXT NOT NULL,
	token   TEXT NOT NULL UNIQUE,
	data    TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE users (
	id             TEXT PRIMARY KEY,
	username_lower TEXT NOT NULL,
	discriminator  TEXT NOT NULL,
	data           TEXT NOT NULL,
	UNIQUE (username_lower, discriminator)
);

CREATE TABLE relationships (
	user_id  TEXT NOT NULL,
	other_id TEXT NOT NULL,
	status   TEXT NOT NULL,
	PRIMARY KEY (user_id, other_id)
);

CREATE TABLE bots (
	id       TEXT PRIMARY KEY,
	owner_id TEXT NOT NULL,
	token    TEXT NOT NULL UNIQUE,
	data     TEXT NOT NULL
);
CREATE INDEX bots_owner ON bots (owner_id);

CREATE TABLE servers (
	id       TEXT PRIMARY KEY,
	owner_id TEXT NOT NULL,
	data     TEXT NOT NULL
);

CREATE TABLE members (
	server_id TEXT NOT NULL,
	user_id   TEXT NOT NULL,
	joined_at BIGINT NOT NULL,
	data      TEXT NOT NULL,
	PRIMARY KEY (server_id, user_id)
);
CREATE INDEX members_user ON members (user_id);

CREATE TABLE bans (
	server_id TEXT NOT NULL,
	user_id   TEXT NOT NULL,
	data      TEXT NOT NULL,
	PRIMARY KEY (server_id, user_id)
);

CREATE TABLE channels (
	id           TEXT PRIMARY KEY,
	channel_type TEXT NOT NULL,
	server_id    TEXT,
	unique_key   TEXT UNIQUE, -- one DM per pair, one SavedMessages per user
	data         TEXT NOT NULL
);
CREATE INDEX channels_server ON channels (server_id) WHERE server_id IS NOT NULL;

CREATE TABLE channel_participants (
	channel_id TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX channel_participants_user ON channel_participants (user_id);

CREATE TABLE messages (
	id         TEXT PRIMARY KEY,
	channel_id TEXT NOT NULL,
	author_id  TEXT NOT NULL,
	content    TEXT,
	pinned     SMALLINT NOT NULL DEFAULT 0,
	data       TEXT NOT NULL
);
CREATE INDEX messages_channel ON messages (channel_id, id);
CREATE INDEX messages_pinned ON messages (channel_id, id) WHERE pinned = 1;

-- Full-text index of message content.
ALTER TABLE messages ADD COLUMN content_tsv tsvector
	GENERATED ALWAYS AS (to_tsvector('simple', coalesce(content, ''))) STORED;
CREATE INDEX messages_fts ON messages USING GIN (content_tsv);

CREATE TABLE emojis (
	id        TEXT PRIMARY KEY,
	server_id TEXT, -- NULL once detached
	data      TEXT NOT NULL
);
CREATE INDEX emojis_server ON emojis (server_id);

CREATE TABLE invites (
	code       TEXT PRIMARY KEY,
	server_id  TEXT,
	channel_id TEXT NOT NULL,
	data       TEXT NOT NULL
);
CREATE INDEX invites_server ON invites (server_id);
CREATE INDEX invites_channel ON invites (channel_id);

CREATE TABLE files (
	id          TEXT PRIMARY KEY,
	hash        TEXT NOT NULL,
	used        SMALLINT NOT NULL DEFAULT 0,
	deleted     SMALLINT NOT NULL DEFAULT 0,
	uploaded_at BIGINT NOT NULL,
	data        TEXT NOT NULL
);
CREATE INDEX files_hash ON files (hash);
CREATE INDEX files_unused ON files (uploaded_at) WHERE used = 0 AND deleted = 0;

CREATE TABLE webhooks (
	id         TEXT PRIMARY KEY,
	channel_id TEXT NOT NULL,
	data       TEXT NOT NULL
);
CREATE INDEX webhooks_channel ON webhooks (channel_id);

CREATE TABLE unreads (
	user_id    TEXT NOT NULL,
	channel_id TEXT NOT NULL,
	last_id    TEXT,
	PRIMARY KEY (user_id, channel_id)
);
CREATE INDEX unreads_channel ON unreads (channel_id);

CREATE TABLE unread_mentions (
	user_id    TEXT NOT NULL,
	channel_id TEXT NOT NULL,
	message_id TEXT NOT NULL,
	PRIMARY KEY (user_id, channel_id, message_id)
);
CREATE INDEX unread_mentions_channel ON unread_mentions (channel_id);

CREATE TABLE settings (
	user_id TEXT NOT NULL,
	key     TEXT NOT NULL,
	ts      BIGINT NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (user_id, key)
);

CREATE TABLE reports (
	id   TEXT PRIMARY KEY,
	data TEXT NOT NULL
);

CREATE TABLE policy_changes (
	created_at BIGINT NOT NULL,
	data       TEXT NOT NULL
);
CREATE INDEX policy_changes_created ON policy_changes (created_at);
