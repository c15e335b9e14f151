-- Each server counts the writes to its channels, in the same transaction
-- as the write: a node that keeps a server's channels in memory reads
-- this one number to know whether they are still current, whichever node
-- changed them.
ALTER TABLE servers ADD COLUMN channels_version BIGINT NOT NULL DEFAULT 0;

-- Messages are stored once: id, channel, author and content live in their
-- columns only, the data document keeps the rest.
UPDATE messages SET data = (data::jsonb - '_id' - 'channel' - 'author' - 'content')::text;
