package testbed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"ermine/internal/chat"
	"ermine/internal/testbed"
)

func TestPercentile(t *testing.T) {
	ten := make([]time.Duration, 10)
	for i := range ten {
		ten[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tt := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{ten, 0.5, 5 * time.Millisecond},
		{ten, 0.9, 9 * time.Millisecond},
		{ten, 0.91, 10 * time.Millisecond},
		{ten, 0.99, 10 * time.Millisecond},
		{ten, 1, 10 * time.Millisecond},
		{ten, 0.01, time.Millisecond},
		{ten[:1], 0.5, time.Millisecond},
		{nil, 0.5, 0},
	} {
		if got := testbed.Percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("Percentile(%d durations, %v) = %s, want %s", len(tt.sorted), tt.p, got, tt.want)
		}
	}
	got := testbed.Describe([]time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond})
	if want := "p50 2.00ms  p90 3.00ms  p99 3.00ms  p99.9 3.00ms  max 3.00ms (n=3)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

// TestSeededNode seeds an in-process node on SQLite and reads the seed
// back through its API.
func TestSeededNode(t *testing.T) {
	testSeededNode(t, "")
}

// TestSeededNodePostgres is TestSeededNode in a fresh schema of
// ERMINE_TEST_POSTGRES, which Stop drops.
func TestSeededNodePostgres(t *testing.T) {
	dsn := testbed.Postgres(t)
	schema := testSeededNode(t, dsn)
	var n int
	if err := queryRow(t, dsn, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", schema).Scan(&n); err != nil || n != 0 {
		t.Errorf("schema %s left behind (%d, %v)", schema, n, err)
	}
}

// testSeededNode returns the node's PostgreSQL schema, if any.
func testSeededNode(t *testing.T, database string) string {
	ctx := t.Context()
	n, err := testbed.StartNode(ctx, "ermine_testbed", database)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{true: "sqlite", false: "postgres"}[database == ""]; n.StoreName != want {
		t.Errorf("store %s, want %s", n.StoreName, want)
	}
	s := &testbed.Seeder{Store: n.Store, Name: "seeded"}
	users, err := s.Users(ctx, 3, testbed.UserOptions{Account: true, DisplayName: true, Discriminators: true})
	if err != nil {
		t.Fatal(err)
	}
	more, err := s.Users(ctx, 1, testbed.UserOptions{Invisible: true})
	if err != nil {
		t.Fatal(err)
	}
	server, err := s.Server(ctx, users[0].ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	nick := "nick"
	if err := s.Join(ctx, server.ID, append(users, more...), func(i int) *string {
		return map[bool]*string{true: &nick}[i == 1]
	}); err != nil {
		t.Fatal(err)
	}
	first := time.Now().Add(-time.Minute)
	if err := s.Messages(ctx, 25, func(i int) *chat.Message {
		content := fmt.Sprintf("message %d", i)
		return &chat.Message{ID: chat.NewIDAt(first.Add(time.Duration(i) * time.Millisecond)), Channel: server.Channels[1],
			Author: users[i%3].ID, Content: &content}
	}); err != nil {
		t.Fatal(err)
	}

	var me struct {
		Username, Discriminator string
		DisplayName             string `json:"display_name"`
	}
	get(t, n.URL+"/users/@me", users[2].Token, &me)
	if me.Username != "seeded2" || me.Discriminator != "0003" || me.DisplayName != "seeded2" {
		t.Errorf("user 2 = %+v", me)
	}
	get(t, n.URL+"/users/@me", more[0].Token, &me)
	if me.Username != "seeded3" || me.Discriminator != "0001" {
		t.Errorf("user 3 = %+v", me)
	}
	var members struct {
		Members []struct {
			Nickname *string
		}
	}
	get(t, n.URL+"/servers/"+string(server.ID)+"/members", users[1].Token, &members)
	nicks := 0
	for _, m := range members.Members {
		if m.Nickname != nil {
			nicks++
		}
	}
	if len(members.Members) != 4 || nicks != 1 {
		t.Errorf("%d members, %d with a nickname; want 4 and 1", len(members.Members), nicks)
	}
	var page []struct{ Content string }
	get(t, n.URL+"/channels/"+string(server.Channels[1])+"/messages?limit=100", users[1].Token, &page)
	if len(page) != 25 || page[0].Content != "message 24" {
		t.Errorf("history: %d messages, newest %+v", len(page), page[:min(1, len(page))])
	}
	var schema string
	if n.DatabaseURL != "" {
		if err := queryRow(t, n.DatabaseURL, "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(schema, "ermine_testbed_") {
			t.Errorf("schema %q", schema)
		}
	}
	if err := n.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	return schema
}

// TestFreshDatabase makes a database, connects to it, and drops it.
func TestFreshDatabase(t *testing.T) {
	dsn := testbed.Postgres(t)
	db, drop, err := testbed.FreshDatabase(t.Context(), dsn, "ermine_testbed")
	if err != nil {
		t.Fatal(err)
	}
	var name string
	if err := queryRow(t, db, "SELECT current_database()").Scan(&name); err != nil || !strings.HasPrefix(name, "ermine_testbed_") {
		t.Fatalf("database %q (%v)", name, err)
	}
	if err := drop(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := queryRow(t, dsn, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s left behind (%d, %v)", name, n, err)
	}
}

// TestErmineProcess builds the binary, runs it until /healthz answers,
// reads its memory and CPU, and kills it.
func TestErmineProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ermine binary")
	}
	bin := testbed.BuildErmine(t)
	p := testbed.Ermine(t, bin, filepath.Join(t.TempDir(), "data"), "ERMINE_LOG_LEVEL=info")
	res, err := http.Get(p.URL + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", res, err)
	}
	res.Body.Close()
	if rss, err := p.RSS(); err != nil || rss < 1<<20 {
		t.Errorf("RSS %d (%v)", rss, err)
	}
	if _, _, err := p.CPU(); err != nil {
		t.Errorf("CPU: %v", err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("killed but not exited")
	}
	if err := p.Stop(); err != nil {
		t.Errorf("stop after kill: %v", err)
	}
}

// TestProcessExitingEarly: a program that ends before serving is an
// error naming it, not a wait of a minute.
func TestProcessExitingEarly(t *testing.T) {
	addr, err := testbed.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = testbed.StartProcess(t.Context(), addr, testbed.Command{Path: "/bin/sh", Args: []string{"-c", "echo no such thing >&2; exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "exited while starting") || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("error %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}

func get(t *testing.T, url, token string, out any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Session-Token", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func queryRow(t *testing.T, dsn, sql string, args ...any) pgx.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c.QueryRow(ctx, sql, args...)
}

// ProfileCPU with no path profiles nothing; with one it leaves a profile
// there once stopped.
func TestProfileCPU(t *testing.T) {
	stop, err := testbed.ProfileCPU("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err = testbed.ProfileCPU(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile at %s: %v, %v", path, fi, err)
	}
	if _, err := testbed.ProfileCPU(filepath.Join(t.TempDir(), "missing", "cpu.prof")); err == nil {
		t.Fatal("a profile in a missing directory was not refused")
	}
}
