package sqlstore

import (
	"context"

	"ermine/internal/store"
)

// FetchImport returns the marker of an unfinished import.
func (s *DB) FetchImport(ctx context.Context) (*store.ImportState, error) {
	return one[store.ImportState](ctx, s, `SELECT data FROM imports WHERE id = 1`+s.lock)
}

// SetImport creates or replaces the marker.
func (s *DB) SetImport(ctx context.Context, st *store.ImportState) error {
	data, err := encode(st)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO imports (id, data) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data`, data)
	return err
}

// DeleteImport removes the marker.
func (s *DB) DeleteImport(ctx context.Context) error {
	_, err := s.exec(ctx, `DELETE FROM imports`)
	return err
}
