// Package sqlstore implements the store contract over database/sql for
// both SQL engines Ermine supports. The engine packages (store/sqlite and
// store/postgres) open the connections, apply their own migrations and
// describe their dialect; everything else, the statements included, is
// written once here so that the two engines cannot drift apart.
//
// Each table holds the object as a JSON document in its data column plus
// the columns the store searches, orders and enforces uniqueness by. The
// document is the truth: the columns are rewritten from it on every write.
package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	lru "github.com/hashicorp/golang-lru/v2"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Dialect describes what differs between SQL engines.
type Dialect struct {
	// Name names the engine in errors ("sqlite", "postgres").
	Name string
	// Numbered says placeholders are $1, $2 ... instead of ?.
	Numbered bool
	// Writers is how many writing transactions the engine commits to
	// good effect at once (store.Writers); 1 when zero.
	Writers int
	// IsConflict reports whether err is a uniqueness violation.
	IsConflict func(error) bool
	// LockRows is appended to single-row reads inside a transaction so
	// that load-change-save is safe against concurrent writers. SQLite
	// leaves it empty: its write transactions are already exclusive.
	LockRows string
	// Search runs a full-text search of message content in s.Channel
	// (with s's range and pinned filter) and returns up to window matches
	// as rows of (id, content), newest first or oldest first as
	// SearchWalk(s.Sort) says. The store orders and pages them.
	Search func(ctx context.Context, q Querier, s store.MessageSearch, window int) (*sql.Rows, error)
	// Filter is the query and arguments listing the ids of the messages f
	// selects (t is f as index words, with a positive condition), newest
	// first or oldest first with f.Ascending, from the first: at least
	// f.Offset+f.Limit of them when there are that many. The store pages
	// them.
	Filter func(t FilterTerms, f store.MessageFilter) (string, []any)
	// SetField is the expression of JSON document column col with its
	// top-level key set to the JSON value of the next placeholder.
	SetField func(col, key string) string
	// Field is the expression of the text of JSON document column col's
	// top-level key (NULL when absent).
	Field func(col, key string) string
	// ByAuthor is the query and arguments listing author's messages with
	// ids after after, oldest first, at most limit, as messageCols. Nil
	// uses the table's (author_id, id) index.
	ByAuthor func(author, after chat.ID, limit int) (string, []any)
}

// ConcurrentWrites is the dialect's Writers (see store.Writers).
func (s *DB) ConcurrentWrites() int { return max(1, s.d.Writers) }

// Querier is what *sql.DB and *sql.Tx have in common.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// DB is a store.Store over database/sql.
type DB struct {
	d     *Dialect
	write *sql.DB // writes and transactions
	read  *sql.DB // reads outside transactions; may equal write
	close func() error

	tx   *sql.Tx // set on the Store handed to an InTx callback
	lock string

	binds *sync.Map // query text → rebound text

	// Prepared statements of each pool. Reusing them spares the engine
	// parsing and planning the same statement on every call, which was a
	// seventh of the CPU time of sending a message on SQLite.
	wstmts, rstmts *stmtCache

	// channelLists are servers' channels kept decoded (channel_lists.go).
	channelLists *lru.Cache[chat.ID, channelList]
}

// New returns a store over the given pools. read may equal write. close
// is called by Close.
func New(d *Dialect, write, read *sql.DB, close func() error) *DB {
	return &DB{d: d, write: write, read: read, close: close, binds: new(sync.Map),
		wstmts: &stmtCache{m: map[string]*sql.Stmt{}}, rstmts: &stmtCache{m: map[string]*sql.Stmt{}},
		channelLists: newChannelLists()}
}

// maxStmts bounds each pool's statement cache. Statements built with a
// variable number of placeholders (IN lists, batches) would otherwise
// fill it; past the bound new statements simply run unprepared.
const maxStmts = 256

// stmtCache holds the prepared statements of one pool by query text.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// get returns the prepared statement for q, preparing it on first use,
// or nil when the cache is full or q cannot be prepared (the caller then
// runs q directly and reports its error).
func (c *stmtCache) get(ctx context.Context, pool *sql.DB, q string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.m[q]
	full := len(c.m) >= maxStmts
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := pool.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[q]; ok {
		st.Close() //nolint:sqlclosecheck // the loser of a race to prepare q; the winner stays cached
		return prev
	}
	c.m[q] = st
	return st
}

// cached returns the statement prepared for q, or nil.
func (c *stmtCache) cached(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
}

// stmt returns a prepared statement for the (rebound) query q: on the
// transaction's connection inside InTx, on the read or write pool outside.
func (s *DB) stmt(ctx context.Context, q string, write bool) *sql.Stmt {
	switch {
	case s.tx != nil:
		// Preparing on the pool here could wait for the connection the
		// transaction holds (SQLite has one writer), so a transaction only
		// reuses statements prepared outside one.
		if st := s.wstmts.cached(q); st != nil {
			return s.tx.StmtContext(ctx, st)
		}
		return nil
	case write:
		return s.wstmts.get(ctx, s.write, q)
	}
	return s.rstmts.get(ctx, s.read, q)
}

// queryRow runs a single-row read through a prepared statement.
func (s *DB) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	q = s.bind(q)
	if hasNUL(args) {
		return s.r().QueryRowContext(ctx, q, args...)
	}
	if st := s.stmt(ctx, q, false); st != nil { //nolint:sqlclosecheck // cached; stmtCache.close closes it
		return st.QueryRowContext(ctx, args...)
	}
	return s.r().QueryRowContext(ctx, q, args...)
}

// query runs a read through a prepared statement.
func (s *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	q = s.bind(q)
	if hasNUL(args) {
		return s.r().QueryContext(ctx, q, args...)
	}
	if st := s.stmt(ctx, q, false); st != nil { //nolint:sqlclosecheck // cached; stmtCache.close closes it
		return st.QueryContext(ctx, args...)
	}
	return s.r().QueryContext(ctx, q, args...)
}

var _ store.Store = (*DB)(nil)

// Ping checks both pools.
func (s *DB) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", s.d.Name, err)
	}
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", s.d.Name, err)
	}
	if _, err := s.read.ExecContext(ctx, "SELECT 1"); err != nil {
		return fmt.Errorf("ping %s: %w", s.d.Name, err)
	}
	return nil
}

// Close closes the prepared statements and the pools.
func (s *DB) Close() error {
	s.wstmts.close()
	s.rstmts.close()
	return s.close()
}

// InTx runs fn in one transaction on the write pool.
func (s *DB) InTx(ctx context.Context, fn func(store.Store) error) error {
	if s.tx != nil {
		return fn(s)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	inner := *s
	inner.tx = tx
	inner.lock = s.d.LockRows
	if err := fn(&inner); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// within runs fn in a transaction with the concrete store type.
func (s *DB) within(ctx context.Context, fn func(*DB) error) error {
	return s.InTx(ctx, func(st store.Store) error { return fn(st.(*DB)) })
}

// ids reads a single column of ids.
func (s *DB) ids(ctx context.Context, q string, args ...any) ([]chat.ID, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []chat.ID
	for rows.Next() {
		var id chat.ID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// w returns where writes go; r where reads go. Both refuse arguments
// holding NUL the same way on every engine (see guard).
func (s *DB) w() Querier {
	if s.tx != nil {
		return guard{s.tx}
	}
	return guard{s.write}
}

func (s *DB) r() Querier {
	if s.tx != nil {
		return guard{s.tx}
	}
	return guard{s.read}
}

// guard gives arguments holding U+0000 (as text, or as the JSON escape
// inside a document) or text that is not UTF-8 one meaning on every
// engine: PostgreSQL rejects them with an error, SQLite would store and
// compare them. A write fails with store.ErrInvalid; a read finds no rows.
type guard struct{ q Querier }

// noRows is a query that returns nothing on every engine.
const noRows = `SELECT 1 WHERE 1 = 0`

func (g guard) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if hasNUL(args) {
		return nil, store.ErrInvalid
	}
	return g.q.ExecContext(ctx, query, args...)
}

func (g guard) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if hasNUL(args) {
		return g.q.QueryContext(ctx, noRows)
	}
	return g.q.QueryContext(ctx, query, args...)
}

func (g guard) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if hasNUL(args) {
		return g.q.QueryRowContext(ctx, noRows)
	}
	return g.q.QueryRowContext(ctx, query, args...)
}

// hasNUL reports whether a query argument is text no engine keeps the
// same way: a string holding a NUL byte or bytes that are not UTF-8
// (PostgreSQL rejects both), or a JSON document holding the escape
// \u0000.
func hasNUL(args []any) bool {
	for _, a := range args {
		switch v := a.(type) {
		case string:
			if strings.IndexByte(v, 0) >= 0 || !utf8.ValidString(v) {
				return true
			}
		case chat.ID:
			if strings.IndexByte(string(v), 0) >= 0 || !utf8.ValidString(string(v)) {
				return true
			}
		case document:
			if jsonNUL([]byte(v)) {
				return true
			}
		case json.RawMessage:
			if bytes.IndexByte(v, 0) >= 0 || jsonNUL(v) {
				return true
			}
		}
	}
	return false
}

// jsonNUL reports whether JSON text holds the escape \u0000 (preceded by
// an odd number of backslashes, so not an escaped backslash).
func jsonNUL(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`u0000`))
		if j < 0 {
			return false
		}
		j += i
		n := 0
		for k := j - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 1 {
			return true
		}
		i = j + 1
	}
}

// bind rewrites ? placeholders for dialects that number them.
func (s *DB) bind(q string) string {
	if !s.d.Numbered {
		return q
	}
	if v, ok := s.binds.Load(q); ok {
		return v.(string)
	}
	out := Rebind(q)
	s.binds.Store(q, out)
	return out
}

// Rebind turns each ? outside string literals into $1, $2 ...
func Rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
			b.WriteByte(c)
		case c == '?' && !quoted:
			n++
			fmt.Fprintf(&b, "$%d", n)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// exec runs a write and maps uniqueness violations to store.ErrConflict.
func (s *DB) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	q = s.bind(q)
	var res sql.Result
	var err error
	if hasNUL(args) {
		return nil, store.ErrInvalid
	}
	if st := s.stmt(ctx, q, true); st != nil { //nolint:sqlclosecheck // cached; stmtCache.close closes it
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = s.w().ExecContext(ctx, q, args...)
	}
	if err != nil {
		if s.d.IsConflict(err) {
			return nil, fmt.Errorf("%w: %v", store.ErrConflict, err)
		}
		return nil, err
	}
	return res, nil
}

// execOne runs a write that must touch one row, else store.ErrNotFound.
func (s *DB) execOne(ctx context.Context, q string, args ...any) error {
	res, err := s.exec(ctx, q, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func encode(v any) (document, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode document: %w", err)
	}
	return document(b), nil
}

// document is a JSON document bound to a data column. Its own type lets
// the NUL guard look for the JSON escape in documents only, not in text
// that merely spells it.
type document string

// Value binds the document as text.
func (d document) Value() (driver.Value, error) { return string(d), nil }

// one reads a single document into a T.
func one[T any](ctx context.Context, s *DB, q string, args ...any) (*T, error) {
	var data string
	err := s.queryRow(ctx, q, args...).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal([]byte(data), v); err != nil {
		return nil, fmt.Errorf("decode document: %w", err)
	}
	return v, nil
}

// many reads every row's document.
func many[T any](ctx context.Context, s *DB, q string, args ...any) ([]*T, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanDocs[T](rows)
}

func scanDocs[T any](rows *sql.Rows) ([]*T, error) {
	defer rows.Close()
	var out []*T
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		v := new(T)
		if err := json.Unmarshal(data, v); err != nil {
			return nil, fmt.Errorf("decode document: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// maxIn bounds the placeholders of one IN list.
const maxIn = 500

// manyIn reads documents whose key column is in keys, in chunks.
// q holds one %s where the placeholder list goes; extra args come first.
func manyIn[T any, K ~string](ctx context.Context, s *DB, q string, keys []K, pre ...any) ([]*T, error) {
	var out []*T
	for len(keys) > 0 {
		n := min(len(keys), maxIn)
		chunk := keys[:n]
		keys = keys[n:]
		args := append([]any{}, pre...)
		for _, k := range chunk {
			args = append(args, string(k))
		}
		part, err := many[T](ctx, s, fmt.Sprintf(q, placeholders(len(chunk))), args...)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func millisOrNil(t *chat.Time) any {
	if t == nil {
		return nil
	}
	return t.Millis()
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// ConnValue runs a query returning one value on a connection of the
// write pool and on one of the read pool, for checking per-connection
// settings (SQLite pragmas) in tests and diagnostics.
func (s *DB) ConnValue(ctx context.Context, query string) (write, read string, err error) {
	if err := s.write.QueryRowContext(ctx, query).Scan(&write); err != nil {
		return "", "", fmt.Errorf("%s: %w", s.d.Name, err)
	}
	if err := s.read.QueryRowContext(ctx, query).Scan(&read); err != nil {
		return "", "", fmt.Errorf("%s: %w", s.d.Name, err)
	}
	return write, read, nil
}
