package sqlstore

import (
	"context"

	"ermine/internal/chat"
)

func used(f *chat.FileRecord) int {
	if f.UsedFor != "" {
		return 1
	}
	return 0
}

// InsertFile adds a file record.
func (s *DB) InsertFile(ctx context.Context, f *chat.FileRecord) error {
	data, err := encode(f)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO files (id, hash, used, deleted, uploaded_at, uploader_id, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.Hash, used(f), deletedFlag(f), f.UploadedAt.Millis(), f.UploaderID, data)
	return err
}

func deletedFlag(f *chat.FileRecord) int {
	if f.Deleted != nil && *f.Deleted {
		return 1
	}
	return 0
}

// FetchFile returns a file record by id.
func (s *DB) FetchFile(ctx context.Context, id string) (*chat.FileRecord, error) {
	return one[chat.FileRecord](ctx, s, `SELECT data FROM files WHERE id = ?`+s.lock, id)
}

// FetchFileByHash returns a live record with the hash.
func (s *DB) FetchFileByHash(ctx context.Context, hash string) (*chat.FileRecord, error) {
	return one[chat.FileRecord](ctx, s, `SELECT data FROM files WHERE hash = ? AND deleted = 0 ORDER BY id LIMIT 1`, hash)
}

// FetchUnusedFiles returns records unused since before.
func (s *DB) FetchUnusedFiles(ctx context.Context, before chat.Time, limit int) ([]*chat.FileRecord, error) {
	return many[chat.FileRecord](ctx, s, `SELECT data FROM files WHERE used = 0 AND deleted = 0 AND uploaded_at < ?
		ORDER BY uploaded_at LIMIT ?`, before.Millis(), limit)
}

// FetchDeletedFiles returns records marked deleted.
func (s *DB) FetchDeletedFiles(ctx context.Context, limit int) ([]*chat.FileRecord, error) {
	return many[chat.FileRecord](ctx, s, `SELECT data FROM files WHERE deleted = 1 ORDER BY uploaded_at LIMIT ?`, limit)
}

// CountFilesByHash counts records sharing a hash.
func (s *DB) CountFilesByHash(ctx context.Context, hash string) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM files WHERE hash = ?`, hash).Scan(&n)
	return n, err
}

// UpdateFile replaces a file record.
func (s *DB) UpdateFile(ctx context.Context, f *chat.FileRecord) error {
	data, err := encode(f)
	if err != nil {
		return err
	}
	return s.execOne(ctx, `UPDATE files SET hash = ?, used = ?, deleted = ?, data = ? WHERE id = ?`,
		f.Hash, used(f), deletedFlag(f), data, f.ID)
}

// DeleteFile removes a file record.
func (s *DB) DeleteFile(ctx context.Context, id string) error {
	return s.execOne(ctx, `DELETE FROM files WHERE id = ?`, id)
}
