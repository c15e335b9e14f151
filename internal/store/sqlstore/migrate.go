package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migrate applies, in order, every migrations/NNNN_name.sql file of fsys
// that the database has not seen, each in its own transaction, and records
// it in schema_migrations. Migrations are forward-only. A database that
// records a migration this binary does not have (migrated by a newer
// Ermine, or by another program) is refused before anything is changed:
// serving it would read rows of a shape this binary does not know.
func (s *DB) Migrate(ctx context.Context, fsys fs.FS) error {
	if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	if err := s.checkSchema(ctx, names); err != nil {
		return err
	}
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

// ErrSchemaTooNew is returned by Migrate for a database migrated by a
// newer binary (or holding a migration this binary does not have).
var ErrSchemaTooNew = errors.New("the database was migrated by a newer Ermine")

// checkSchema compares the migrations the database records with the
// binary's own (names, sorted).
func (s *DB) checkSchema(ctx context.Context, names []string) error {
	known := map[int]bool{}
	mine := 0
	for _, name := range names {
		num, _, _ := strings.Cut(strings.TrimPrefix(name, "migrations/"), "_")
		if v, err := strconv.Atoi(num); err == nil {
			known[v] = true
			mine = max(mine, v)
		}
	}
	rows, err := s.write.QueryContext(ctx, `SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer rows.Close()
	theirs, unknown := 0, []string{}
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		theirs = max(theirs, v)
		if !known[v] {
			unknown = append(unknown, name)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if len(unknown) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the database is at schema version %d, this binary knows up to version %d "+
		"and not the migrations %s; run the Ermine release that migrated it (or a newer one), "+
		"or restore the backup taken before the upgrade (docs/operating.md, Upgrading)",
		ErrSchemaTooNew, theirs, mine, strings.Join(unknown, ", "))
}
