-- When each relayed frame was kept (Unix milliseconds), so that frames
-- no node took in time expire instead of reaching clients late. Rows from
-- before this column read as 0: expired.
ALTER TABLE relay_events ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
