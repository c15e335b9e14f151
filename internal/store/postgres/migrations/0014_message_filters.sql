-- Filters of a server-wide search and a user's mentions (reference
-- branch feat/elasticsearch, pull request #715), and ephemeral messages
-- (pull request #929).
--
-- tags holds the words a message's filters match beyond its content,
-- channel and author (mention<id>, role<id>, bot, webhook, pinned, file,
-- image, video, link, embed; NULL when none), indexed through tags_tsv.
-- ephemeral is the one user an ephemeral message is for (NULL for
-- every other message); the partial index finds the expired ones.
ALTER TABLE messages ADD COLUMN tags TEXT;
ALTER TABLE messages ADD COLUMN ephemeral TEXT;
CREATE INDEX messages_ephemeral ON messages (id) WHERE ephemeral IS NOT NULL;

-- The tags of the messages stored so far, from their documents (a link is
-- any http:// or https:// in the content; the store's own test is finer).
UPDATE messages SET tags = nullif(trim(
	coalesce((SELECT string_agg('mention' || (v #>> '{}'), ' ') FROM jsonb_path_query(data::jsonb, '$.mentions[*]') v), '') || ' ' ||
	coalesce((SELECT string_agg('role' || (v #>> '{}'), ' ') FROM jsonb_path_query(data::jsonb, '$.role_mentions[*]') v), '') || ' ' ||
	CASE WHEN jsonb_path_exists(data::jsonb, '$.webhook') THEN 'webhook ' ELSE '' END ||
	CASE WHEN pinned = 1 THEN 'pinned ' ELSE '' END ||
	CASE WHEN jsonb_path_exists(data::jsonb, '$.attachments[*]') THEN 'file ' ELSE '' END ||
	CASE WHEN jsonb_path_exists(data::jsonb, '$.attachments[*] ? (@.metadata.type == "Image")') THEN 'image ' ELSE '' END ||
	CASE WHEN jsonb_path_exists(data::jsonb, '$.attachments[*] ? (@.metadata.type == "Video")') THEN 'video ' ELSE '' END ||
	CASE WHEN content LIKE '%http://%' OR content LIKE '%https://%' THEN 'link ' ELSE '' END ||
	CASE WHEN jsonb_path_exists(data::jsonb, '$.embeds[*]') THEN 'embed' ELSE '' END), '')
WHERE data != '{}' OR pinned = 1 OR content LIKE '%://%';

ALTER TABLE messages ADD COLUMN tags_tsv tsvector
	GENERATED ALWAYS AS (to_tsvector('simple', coalesce(tags, ''))) STORED;
CREATE INDEX messages_tags ON messages USING GIN (tags_tsv);
