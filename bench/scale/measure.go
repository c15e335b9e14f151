package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/testbed"
)

// perOp runs f reps times (after one warm-up call) and returns the CPU
// time per call and the bytes of the last call's result.
func perOp(reps int, f func() (int, error)) (time.Duration, int, error) {
	if _, err := f(); err != nil {
		return 0, 0, err
	}
	start := testbed.CPUTime()
	size := 0
	for range reps {
		n, err := f()
		if err != nil {
			return 0, 0, err
		}
		size = n
	}
	return (testbed.CPUTime() - start) / time.Duration(reps), size, nil
}

// growth is the node measured and what has been seeded into it.
type growth struct {
	node *testbed.Node
	seed *testbed.Seeder
	sw   *searchWorld // the search channels, kept between sizes
}

// user seeds one user with a display name and returns the app's caller
// for them.
func (g *growth) user(ctx context.Context) (testbed.User, *app.Caller, error) {
	u, err := g.seed.Users(ctx, 1, testbed.UserOptions{DisplayName: true, Discriminators: true})
	if err != nil {
		return testbed.User{}, nil, err
	}
	caller, err := g.node.App.Authenticate(ctx, u[0].Token, "")
	return u[0], caller, err
}

// measureReady seeds a user in servers servers of channels channels each
// and measures building and encoding their Ready as the events gateway
// does (default sections, JSON).
func (g *growth) ready(ctx context.Context, servers, channels, reps int) (time.Duration, int, error) {
	u, caller, err := g.user(ctx)
	if err != nil {
		return 0, 0, err
	}
	for range servers {
		s, err := g.seed.Server(ctx, u.ID, channels)
		if err != nil {
			return 0, 0, err
		}
		if err := g.seed.Join(ctx, s.ID, []testbed.User{u}, nil); err != nil {
			return 0, 0, err
		}
	}
	return perOp(reps, func() (int, error) {
		ev, _, err := g.node.App.Ready(ctx, caller, app.DefaultReadySections())
		if err != nil {
			return 0, fmt.Errorf("ready: %w", err)
		}
		if len(ev.Servers) != servers || len(ev.Channels) != servers*channels {
			return 0, fmt.Errorf("ready: %d servers, %d channels", len(ev.Servers), len(ev.Channels))
		}
		b, err := json.Marshal(ev)
		return len(b), err
	})
}

// measureMembers seeds a server of members members (one in ten with a
// nickname) and measures GET /servers/{id}/members as the API serves it:
// the use case and its JSON encoding.
func (g *growth) members(ctx context.Context, members, reps int) (time.Duration, int, error) {
	owner, caller, err := g.user(ctx)
	if err != nil {
		return 0, 0, err
	}
	s, err := g.seed.Server(ctx, owner.ID, 1)
	if err != nil {
		return 0, 0, err
	}
	others, err := g.seed.Users(ctx, members-1, testbed.UserOptions{DisplayName: true, Discriminators: true})
	if err != nil {
		return 0, 0, err
	}
	// The owner first, then the others, one in ten with a nickname.
	err = g.seed.Join(ctx, s.ID, append([]testbed.User{owner}, others...), func(i int) *string {
		if i == 0 || i%10 != 0 {
			return nil
		}
		nick := fmt.Sprintf("nick %d", i)
		return &nick
	})
	if err != nil {
		return 0, 0, err
	}
	var body []byte
	cpu, size, err := perOp(reps, func() (int, error) {
		body, err = g.node.App.FetchMembersJSON(ctx, caller, s.ID, false)
		if err != nil {
			return 0, fmt.Errorf("fetch members: %w", err)
		}
		return len(body), nil
	})
	if err != nil {
		return 0, 0, err
	}
	// Decoding is the client's work: checked once, outside the timing.
	var list chat.MemberList
	if err := json.Unmarshal(body, &list); err != nil || len(list.Members) != members || len(list.Users) != members {
		return 0, 0, fmt.Errorf("fetch members: %d members, %d users of %d (%v)", len(list.Members), len(list.Users), members, err)
	}
	return cpu, size, nil
}

// searchWorld is the search channels, kept between sizes.
type searchWorld struct {
	caller     *app.Caller
	big, small chat.ID
	server     chat.ID
	author     chat.ID
	token      string // the author's session, for history over HTTP
	inserted   int
	ids        []chat.ID // the big channel's messages, for history pages
}

const (
	commonWord = "lantern" // in every message
	rareWord   = "quokka"  // in one message in 10,000
)

type searchResult struct {
	word, order string
	p50, p99    time.Duration
}

// measureSearch adds add messages (to total in the store: 100 in a small
// channel, the rest in a big one), then times searches for a common and a
// rare word in both channels and both orders, and reports the store's
// growth per message added.
func (g *growth) search(ctx context.Context, add, total, reps int) ([]searchResult, float64, error) {
	n := g.node
	if g.sw == nil {
		u, caller, err := g.user(ctx)
		if err != nil {
			return nil, 0, err
		}
		s, err := g.seed.Server(ctx, u.ID, 2)
		if err != nil {
			return nil, 0, err
		}
		if err := g.seed.Join(ctx, s.ID, []testbed.User{u}, nil); err != nil {
			return nil, 0, err
		}
		g.sw = &searchWorld{caller: caller, big: s.Channels[0], small: s.Channels[1], server: s.ID, author: u.ID, token: u.Token}
	}
	sw := g.sw
	before, err := storeBytes(ctx, n)
	if err != nil {
		return nil, 0, err
	}
	first := time.Now().Add(-time.Duration(add) * time.Millisecond)
	err = g.seed.Messages(ctx, add, func(i int) *chat.Message {
		k := sw.inserted + i
		ch := sw.big
		if k < 100 {
			ch = sw.small
		}
		// About 100 characters, like a chat line.
		content := fmt.Sprintf("the %s in message %d lights the way home across the quiet valley tonight, friend", commonWord, k)
		if k%10_000 == 0 {
			content += " " + rareWord
		}
		m := &chat.Message{ID: chat.NewIDAt(first.Add(time.Duration(i) * time.Millisecond)), Channel: ch,
			Author: sw.author, Content: &content}
		if k%10_000 == 5000 { // the caller's mentions, one in 10,000
			m.Mentions = []chat.ID{sw.author}
		}
		if ch == sw.big {
			sw.ids = append(sw.ids, m.ID)
		}
		return m
	})
	if err != nil {
		return nil, 0, err
	}
	sw.inserted += add
	if err := analyze(ctx, n); err != nil {
		return nil, 0, err
	}
	after, err := storeBytes(ctx, n)
	if err != nil {
		return nil, 0, err
	}
	var out []searchResult
	for _, c := range []struct {
		name string
		id   chat.ID
	}{{"big", sw.big}, {"100-msg", sw.small}} {
		for _, word := range []string{commonWord, rareWord} {
			for _, order := range []string{store.SortRelevance, store.SortLatest} {
				lat := make([]time.Duration, 0, reps)
				for range reps {
					q, o := word, order
					start := time.Now()
					res, err := n.App.SearchMessages(ctx, sw.caller, c.id, chat.MessageSearch{Query: &q, Sort: &o})
					if err != nil {
						return nil, 0, fmt.Errorf("search: %w", err)
					}
					lat = append(lat, time.Since(start))
					if word == commonWord && len(res.Messages) == 0 {
						return nil, 0, fmt.Errorf("search %q found nothing", word)
					}
				}
				out = append(out, quantiles(c.name+":"+word, order, lat))
			}
		}
	}
	// Server-wide search (POST /search) over both channels, and the
	// mentions inbox.
	for _, word := range []string{commonWord, rareWord} {
		for _, asc := range []bool{false, true} {
			sort, order := "desc", "desc"
			if asc {
				sort, order = "asc", "asc"
			}
			lat := make([]time.Duration, 0, reps)
			for range reps {
				q := word
				start := time.Now()
				res, err := n.App.Search(ctx, sw.caller, chat.Search{Server: &sw.server, Sort: &sort,
					Filters: &chat.SearchFilters{Content: &q}})
				if err != nil {
					return nil, 0, fmt.Errorf("server search: %w", err)
				}
				lat = append(lat, time.Since(start))
				if len(res.Messages) == 0 {
					return nil, 0, fmt.Errorf("server search %q found nothing", word)
				}
			}
			out = append(out, quantiles("server:"+word, order, lat))
		}
	}
	lat := make([]time.Duration, 0, reps)
	for range reps {
		start := time.Now()
		if _, err := n.App.FetchNotifications(ctx, sw.caller); err != nil {
			return nil, 0, fmt.Errorf("notifications: %w", err)
		}
		lat = append(lat, time.Since(start))
	}
	out = append(out, quantiles("inbox:mentions", "desc", lat))
	return out, float64(after-before) / float64(add), nil
}

// quantiles is the p50 and p99 of lat (which it sorts) as a row.
func quantiles(word, order string, lat []time.Duration) searchResult {
	slices.Sort(lat)
	return searchResult{word: word, order: order, p50: testbed.Percentile(lat, 0.5), p99: testbed.Percentile(lat, 0.99)}
}

// storeBytes is the size of the store on disk: the SQLite file after a
// checkpoint of its write-ahead log, or PostgreSQL's messages table with
// its indexes and TOAST.
func storeBytes(ctx context.Context, n *testbed.Node) (int64, error) {
	if n.SQLitePath != "" {
		db, err := sql.Open("sqlite", "file:"+n.SQLitePath)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return 0, fmt.Errorf("checkpoint: %w", err)
		}
		fi, err := os.Stat(n.SQLitePath)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	db, err := sql.Open("pgx", n.DatabaseURL)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var size int64
	if err := db.QueryRowContext(ctx, "SELECT pg_total_relation_size('messages')").Scan(&size); err != nil {
		return 0, fmt.Errorf("table size: %w", err)
	}
	return size, nil
}

// analyze refreshes PostgreSQL's statistics of the messages table after
// seeding, as its autovacuum would soon after a bulk load: its planner
// picks between walking a channel and intersecting a word's index
// entries by them. SQLite's planner needs none.
func analyze(ctx context.Context, n *testbed.Node) error {
	if n.DatabaseURL == "" {
		return nil
	}
	db, err := sql.Open("pgx", n.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "ANALYZE messages"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
