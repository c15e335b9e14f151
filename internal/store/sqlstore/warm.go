package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// warmQueries are the reads of nearly every request (authentication)
// and of every send, with arguments that match no row.
var warmQueries = []struct {
	q    string
	args []any
}{
	{querySessionUser, []any{""}},
	{querySessionChannelAccess, []any{"", ""}},
}

// Warm opens n connections of the pool at once and runs the statements
// of nearly every request on each, with arguments that match nothing,
// before the node serves. A PostgreSQL connection is a new server
// process, and each process builds its own caches of the tables and
// indexes a statement names the first time it parses and plans one: on
// a slow machine tens of milliseconds per connection for each of them.
// A node that has not done this makes its first burst of requests wait
// for all of it (docs/performance.md). n is at most the pool's size. A
// connection that cannot be opened or warmed is reported; the others
// stay open in the pool.
func (s *DB) Warm(ctx context.Context, n int) error {
	conns := make([]*sql.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := s.write.Conn(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			conns[i] = c
			for _, w := range warmQueries {
				if err := warmOne(ctx, c, s.bind(w.q), w.args); err != nil {
					errs[i] = fmt.Errorf("warm: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			_ = c.Close() // back to the pool, open
		}
	}
	failed, first := 0, error(nil)
	for _, err := range errs {
		if err != nil {
			failed++
			first = cmp.Or(first, err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d connections: %w", failed, n, first)
	}
	return nil
}

// warmOne runs q on c and reads its rows (none).
func warmOne(ctx context.Context, c *sql.Conn, q string, args []any) error {
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}
