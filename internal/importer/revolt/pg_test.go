package revolt_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // schemas for the PostgreSQL runs
)

var schemaSeq atomic.Int64

// freshSchema creates an empty schema, dropped at the end, and returns a
// URL selecting it.
func freshSchema(tb testing.TB, dsn string) string {
	tb.Helper()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("ermine_bench_%d_%d", time.Now().UnixNano(), schemaSeq.Add(1))
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + name + " CASCADE") })
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}
