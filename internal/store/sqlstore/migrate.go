package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migrate applies, in order, every migrations/NNNN_name.sql file of fsys
// that the database has not seen, each in its own transaction, and records
// it in schema_migrations. Migrations are forward-only.
func (s *DB) Migrate(ctx context.Context, fsys fs.FS) error {
	if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("migrate: %s: name must be NNNN_name.sql", name)
		}
		var n int
		if err := s.write.QueryRowContext(ctx, s.bind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), version).Scan(&n); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		err = s.within(ctx, func(tx *DB) error {
			if _, err := tx.tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, version, base)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", base, err)
		}
	}
	return nil
}
