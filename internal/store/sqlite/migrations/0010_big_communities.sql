-- Each server counts the writes to its channels, in the same transaction
-- as the write: a node that keeps a server's channels in memory reads
-- this one number to know whether they are still current, whichever node
-- changed them.
ALTER TABLE servers ADD COLUMN channels_version INTEGER NOT NULL DEFAULT 0;

-- Search within a channel: the full-text index also holds each message's
-- channel (and author), so a search matches the channel's token and the
-- words together, and the cost follows the smaller of the two (FTS5
-- seeks through the longer list) instead of every match in the database.
-- The search ranks matches itself, so the index keeps no positions
-- (detail=column) and no document sizes (columnsize=0): it only says
-- which messages hold a word, and in which column.
--
-- Messages are stored once: id, channel, author and content live in their
-- columns only, the data document keeps the rest. The author's messages
-- (data export, an account's wipe) are found through the author's token
-- in the full-text index, not a second index on the table.
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE messages_fts;
DROP INDEX messages_author;
UPDATE messages SET data = json_remove(data, '$._id', '$.channel', '$.author', '$.content');
CREATE VIRTUAL TABLE messages_fts USING fts5 (content, channel_id, author_id, content = 'messages', content_rowid = 'rowid',
	tokenize = 'unicode61 remove_diacritics 2', detail = column, columnsize = 0);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, content, channel_id, author_id) VALUES (new.rowid, new.content, new.channel_id, new.author_id);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content, channel_id, author_id) VALUES ('delete', old.rowid, old.content, old.channel_id, old.author_id);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content, channel_id, author_id) VALUES ('delete', old.rowid, old.content, old.channel_id, old.author_id);
	INSERT INTO messages_fts (rowid, content, channel_id, author_id) VALUES (new.rowid, new.content, new.channel_id, new.author_id);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
