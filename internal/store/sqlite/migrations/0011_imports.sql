-- The marker of an unfinished import (at most one row): while it exists
-- the server refuses to start and the import command resumes from it.
CREATE TABLE imports (
	id   INTEGER PRIMARY KEY CHECK (id = 1),
	data TEXT NOT NULL
);
