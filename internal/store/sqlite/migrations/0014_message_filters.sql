-- Filters of a server-wide search and a user's mentions (reference
-- branch feat/elasticsearch, pull request #715), and ephemeral messages
-- (pull request #929).
--
-- tags holds the words a message's filters match beyond its content,
-- channel and author (mention<id>, role<id>, bot, webhook, pinned, file,
-- image, video, link, embed; NULL when none), and joins the full-text
-- index as a fourth column, so every filter is answered by the index.
-- ephemeral is the one user an ephemeral message is for (NULL for
-- every other message); the partial index finds the expired ones.
ALTER TABLE messages ADD COLUMN tags TEXT;
ALTER TABLE messages ADD COLUMN ephemeral TEXT;
CREATE INDEX messages_ephemeral ON messages (id) WHERE ephemeral IS NOT NULL;

-- The tags of the messages stored so far, from their documents (a link is
-- any http:// or https:// in the content; the store's own test is finer).
UPDATE messages SET tags = nullif(trim(
	coalesce((SELECT group_concat('mention' || value, ' ') FROM json_each(data, '$.mentions')), '') || ' ' ||
	coalesce((SELECT group_concat('role' || value, ' ') FROM json_each(data, '$.role_mentions')), '') || ' ' ||
	CASE WHEN json_type(data, '$.webhook') IS NOT NULL THEN 'webhook ' ELSE '' END ||
	CASE WHEN pinned = 1 THEN 'pinned ' ELSE '' END ||
	CASE WHEN json_array_length(data, '$.attachments') > 0 THEN 'file ' ELSE '' END ||
	CASE WHEN EXISTS (SELECT 1 FROM json_each(data, '$.attachments') WHERE json_extract(value, '$.metadata.type') = 'Image') THEN 'image ' ELSE '' END ||
	CASE WHEN EXISTS (SELECT 1 FROM json_each(data, '$.attachments') WHERE json_extract(value, '$.metadata.type') = 'Video') THEN 'video ' ELSE '' END ||
	CASE WHEN content LIKE '%http://%' OR content LIKE '%https://%' THEN 'link ' ELSE '' END ||
	CASE WHEN json_array_length(data, '$.embeds') > 0 THEN 'embed' ELSE '' END), '')
WHERE data != '{}' OR pinned = 1 OR content LIKE '%://%';

DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5 (content, channel_id, author_id, tags, content = 'messages', content_rowid = 'rowid',
	tokenize = 'unicode61 remove_diacritics 2', detail = column, columnsize = 0);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, content, channel_id, author_id, tags) VALUES (new.rowid, new.content, new.channel_id, new.author_id, new.tags);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content, channel_id, author_id, tags) VALUES ('delete', old.rowid, old.content, old.channel_id, old.author_id, old.tags);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tags ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content, channel_id, author_id, tags) VALUES ('delete', old.rowid, old.content, old.channel_id, old.author_id, old.tags);
	INSERT INTO messages_fts (rowid, content, channel_id, author_id, tags) VALUES (new.rowid, new.content, new.channel_id, new.author_id, new.tags);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
