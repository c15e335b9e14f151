// Package postgres is Ermine's PostgreSQL store, for several nodes
// sharing one database. It uses pgx through database/sql so that it runs
// the same statements as the SQLite store; only the schema and full-text
// search differ. Migrations are embedded and applied by Open.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"ermine/internal/store"
	"ermine/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Conns is how many connections a node's pool holds at most; idle ones
// stay open. A serving node opens them all at start (sqlstore.DB.Warm).
const Conns = 16

// Open connects to the database at url (postgres://...), applies pending
// migrations and returns the store.
func Open(ctx context.Context, url string) (*sqlstore.DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	db.SetMaxOpenConns(Conns)
	db.SetMaxIdleConns(Conns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s := sqlstore.New(dialect, db, db, db.Close)
	// Serialise migrations across nodes starting at once.
	if _, err := db.ExecContext(ctx, `SELECT pg_advisory_lock(7472001)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: migration lock: %w", err)
	}
	err = s.Migrate(ctx, migrations)
	if _, uerr := db.ExecContext(ctx, `SELECT pg_advisory_unlock(7472001)`); uerr != nil && err == nil {
		err = uerr
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

// HasSchema reports whether the database at url holds Ermine's tables
// (a migrated database), without changing anything.
func HasSchema(ctx context.Context, url string) (bool, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	defer db.Close()
	var ok bool
	err = db.QueryRowContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("postgres: connect: %w", err)
	}
	return ok, nil
}

var dialect = &sqlstore.Dialect{
	Name:       "postgres",
	Numbered:   true,
	IsConflict: isConflict,
	LockRows:   " FOR UPDATE",
	// While one batch of new messages waits for its commit's WAL flush,
	// the next is inserted. With sends' reads answered from memory
	// (app's access cache), 2 raised `ermine-load --workers 32` from
	// about 7,750 to 8,200-8,650 messages/s on the 2-core test machine;
	// 3 and 4 gained nothing more, and without that cache 2 gained
	// nothing (the read was the limit).
	Writers: 2,
	Search:  search,
	Filter:  filter,
	SetField: func(col, key string) string {
		return "jsonb_set(" + col + "::jsonb, '{" + key + "}', ?::jsonb)::text"
	},
	Field: func(col, key string) string {
		return "(" + col + "::jsonb ->> '" + key + "')"
	},
}

var _ store.Store = (*sqlstore.DB)(nil)

func isConflict(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505" // unique_violation
}

// search matches every word with PostgreSQL text search in the channel,
// newest first (oldest first for Oldest), and stops after window
// matches: the planner walks the channel's (channel_id, id) index and
// tests each message when the words are frequent there, and intersects
// the word's index entries with the channel when they are rare.
func search(ctx context.Context, q sqlstore.Querier, s store.MessageSearch, window int) (*sql.Rows, error) {
	terms := sqlstore.SearchTerms(s.Query)
	if len(terms) == 0 {
		return q.QueryContext(ctx, `SELECT id, content FROM messages WHERE false`)
	}
	where, args := sqlstore.SearchRange(string(s.Before), string(s.After), s.Viewer)
	if s.Pinned {
		where += " AND m.pinned = 1"
	}
	query := `SELECT m.id, m.content FROM messages m
		WHERE m.content_tsv @@ plainto_tsquery('simple', ?) AND m.channel_id = ?` + where +
		` ORDER BY m.id ` + sqlstore.SearchWalk(s.Sort) + ` LIMIT ?`
	all := append([]any{strings.Join(terms, " "), string(s.Channel)}, args...)
	return q.QueryContext(ctx, sqlstore.Rebind(query), append(all, window)...)
}

// filter matches the conditions of t with the table's indexes: the words
// through content_tsv, the tags through tags_tsv (a group's tags as
// alternatives, the tags none may hold negated), channels and authors as
// lists. The planner walks the primary key newest first (oldest first)
// when the conditions are common, and intersects the GIN entries when
// one of them is rare.
func filter(t sqlstore.FilterTerms, f store.MessageFilter) (string, []any) {
	var conds []string
	var args []any
	in := func(col string, vals []string) {
		conds = append(conds, col+` IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+`)`)
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if len(t.Channels) > 0 {
		in("m.channel_id", t.Channels)
	}
	if len(t.Authors) > 0 {
		in("m.author_id", t.Authors)
	}
	if len(t.Words) > 0 {
		conds = append(conds, `m.content_tsv @@ plainto_tsquery('simple', ?)`)
		args = append(args, strings.Join(t.Words, " "))
	}
	var query []string
	for _, g := range t.Tags {
		query = append(query, `(`+strings.Join(g, " | ")+`)`)
	}
	for _, n := range t.None {
		query = append(query, `!`+n)
	}
	if len(query) > 0 {
		// Tags are letters and digits only (FilterTokens), never tsquery syntax.
		conds = append(conds, `m.tags_tsv @@ to_tsquery('simple', ?)`)
		args = append(args, strings.Join(query, " & "))
	}
	where, more := sqlstore.SearchRange(string(f.Before), string(f.After), f.Viewer)
	order := "DESC"
	if f.Ascending {
		order = "ASC"
	}
	// At least a search window, as channel search reads: the planner
	// picks its plan by the limit, and with a page's (20, 100) it walked
	// a million messages newest first for a word in 1 of 10,000, taking
	// the word for a common one.
	return `SELECT m.id FROM messages m WHERE ` + strings.Join(conds, " AND ") + where +
		` ORDER BY m.id ` + order + ` LIMIT ?`, append(append(args, more...), max(f.Offset+f.Limit, sqlstore.SearchWindow))
}
