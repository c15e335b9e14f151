-- Released files waiting for the sweep that removes them and their bytes.
CREATE INDEX files_deleted ON files (uploaded_at) WHERE deleted = 1;
