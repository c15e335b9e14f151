// Package sqlite is Ermine's embedded default store: SQLite through a
// pure-Go driver (no cgo), in WAL mode, with one write connection and a
// pool of read connections. Migrations are embedded and applied by Open.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// readers is the size of the read pool.
const readers = 4

// Synchronous settings of Options (SQLite's PRAGMA synchronous).
const (
	// SyncNormal syncs the WAL at checkpoints only: a commit survives a
	// crash of the process, but the last commits may be lost to a power
	// loss or an OS crash (the database stays consistent either way).
	SyncNormal = "NORMAL"
	// SyncFull syncs the WAL at every commit: a commit also survives a
	// power loss, at the cost of one fsync per write transaction.
	SyncFull = "FULL"
)

// Options tune how the database is opened.
type Options struct {
	// Synchronous is SyncNormal (the default when empty) or SyncFull.
	Synchronous string
}

// Open opens (creating if needed) the database file at path with the
// default options, applies pending migrations and returns the store.
func Open(ctx context.Context, path string) (*sqlstore.DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*sqlstore.DB, error) {
	switch strings.ToUpper(o.Synchronous) {
	case "":
		o.Synchronous = SyncNormal
	case SyncNormal, SyncFull:
		o.Synchronous = strings.ToUpper(o.Synchronous)
	default:
		return nil, fmt.Errorf("sqlite: synchronous %q: want NORMAL or FULL", o.Synchronous)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	pragmas := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(on)", "synchronous(" + o.Synchronous + ")"} {
		pragmas.Add("_pragma", p)
	}
	writeDSN := "file:" + path + "?" + pragmas.Encode() + "&_txlock=immediate"
	write, err := sql.Open("sqlite", writeDSN)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	// One writer: SQLite allows one write transaction at a time, and a
	// single connection queues writers in Go instead of failing with BUSY.
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}

	pragmas.Add("_pragma", "query_only(on)")
	read, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode())
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)

	db := sqlstore.New(dialect, write, read, func() error {
		return errors.Join(read.Close(), write.Close())
	})
	if err := db.Migrate(ctx, migrations); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return db, nil
}

// HasSchema reports whether the database file at path holds Ermine's
// tables (a migrated database), without changing or creating anything.
func HasSchema(ctx context.Context, path string) (bool, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return false, fmt.Errorf("sqlite: %w", err)
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	return n > 0, nil
}

var dialect = &sqlstore.Dialect{
	Name:       "sqlite",
	IsConflict: isConflict,
	Search:     search,
	Filter:     filter,
	ByAuthor:   byAuthor,
	SetField: func(col, key string) string {
		return "json_set(" + col + ", '$." + key + "', json(?))"
	},
	Field: func(col, key string) string {
		return "json_extract(" + col + ", '$." + key + "')"
	},
}

var _ store.Store = (*sqlstore.DB)(nil)

func isConflict(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return false
}

// search matches every word of the query with FTS5, each word quoted so
// user text is never read as FTS syntax, together with the channel's
// token (the index holds each message's channel_id): FTS5 walks the
// shorter of the lists and seeks in the longer, so a search costs what
// the channel's matches cost, not every match in the database. It walks
// the matches in rowid order, which is the order messages were stored,
// and stops after window of them.
func search(ctx context.Context, q sqlstore.Querier, s store.MessageSearch, window int) (*sql.Rows, error) {
	terms := sqlstore.SearchTerms(s.Query)
	if len(terms) == 0 {
		return q.QueryContext(ctx, `SELECT id, content FROM messages WHERE 0`)
	}
	match := `channel_id : "` + strings.ReplaceAll(string(s.Channel), `"`, `""`) + `"`
	for _, t := range terms {
		match += ` AND content : "` + t + `"`
	}
	where, args := sqlstore.SearchRange(string(s.Before), string(s.After), s.Viewer)
	if s.Pinned {
		where += " AND m.pinned = 1"
	}
	query := `SELECT m.id, m.content FROM messages_fts f JOIN messages m ON m.rowid = f.rowid
		WHERE messages_fts MATCH ?` + where + ` ORDER BY f.rowid ` + sqlstore.SearchWalk(s.Sort) + ` LIMIT ?`
	return q.QueryContext(ctx, query, append(append([]any{match}, args...), window)...)
}

// byAuthor finds an author's messages through the author's token in the
// full-text index (the table keeps no index on authors: they are asked
// for only by a data export or an account's wipe).
func byAuthor(author, after chat.ID, limit int) (string, []any) {
	match := `author_id : "` + strings.ReplaceAll(string(author), `"`, `""`) + `"`
	return `SELECT m.id, m.channel_id, m.author_id, m.content, m.data FROM messages_fts f JOIN messages m ON m.rowid = f.rowid
		WHERE messages_fts MATCH ? AND m.id > ? ORDER BY m.id LIMIT ?`, []any{match, string(after), limit}
}

// Backup writes a consistent copy of the database at path to dest (which
// must not exist) with VACUUM INTO. It reads through its own connection,
// so it runs while a server is using the database: writers go on, and
// the copy is the database as of the moment the copy began. The copy is
// readable by its owner only (0600), whatever the umask: it holds every
// account's password hash and every private message.
func Backup(ctx context.Context, path, dest string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	// VACUUM INTO writes into an empty file that exists, keeping its mode;
	// left to make the file itself, SQLite would give it 0644.
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlite: backup: %s exists", dest)
	}
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	err = vacuumInto(ctx, path, dest)
	if err != nil {
		os.Remove(dest)
	}
	return err
}

func vacuumInto(ctx context.Context, path, dest string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// filter matches every condition of t with FTS5 in one MATCH: the
// channels, authors and each tag group as alternatives within their
// columns, the words together, and the tags none may hold after NOT.
// FTS5 walks the shortest of the lists and seeks in the others, so the
// rarest condition sets the cost; it walks in rowid order (the order
// messages were stored) and stops after the page.
func filter(t sqlstore.FilterTerms, f store.MessageFilter) (string, []any) {
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	anyOf := func(col string, words []string) string {
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = quote(w)
		}
		return col + ` : (` + strings.Join(q, " OR ") + `)`
	}
	var parts []string
	if len(t.Channels) > 0 {
		parts = append(parts, anyOf("channel_id", t.Channels))
	}
	if len(t.Authors) > 0 {
		parts = append(parts, anyOf("author_id", t.Authors))
	}
	for _, w := range t.Words {
		parts = append(parts, `content : `+quote(w))
	}
	for _, g := range t.Tags {
		parts = append(parts, anyOf("tags", g))
	}
	match := strings.Join(parts, " AND ")
	if len(t.None) > 0 {
		match = `(` + match + `) NOT ` + anyOf("tags", t.None)
	}
	where, args := sqlstore.SearchRange(string(f.Before), string(f.After), f.Viewer)
	order := "DESC"
	if f.Ascending {
		order = "ASC"
	}
	return `SELECT m.id FROM messages_fts f JOIN messages m ON m.rowid = f.rowid
		WHERE messages_fts MATCH ?` + where + ` ORDER BY f.rowid ` + order + ` LIMIT ?`,
		append(append([]any{match}, args...), f.Offset+f.Limit)
}
