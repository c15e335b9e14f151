package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// cpuTime is the user and system CPU time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perOp runs f reps times (after one warm-up call) and returns the CPU
// time per call and the bytes of the last call's result.
func perOp(reps int, f func() (int, error)) (time.Duration, int, error) {
	if _, err := f(); err != nil {
		return 0, 0, err
	}
	start := cpuTime()
	size := 0
	for range reps {
		n, err := f()
		if err != nil {
			return 0, 0, err
		}
		size = n
	}
	return (cpuTime() - start) / time.Duration(reps), size, nil
}

// born is the creation time of seeded users: established accounts.
var born = time.Now().Add(-30 * 24 * time.Hour)

func seq() int { seqN++; return seqN }

var seqN int

// newUser stores a user with a session and returns the app's caller for it.
func newUser(ctx context.Context, st store.Store) (*chat.User, string, error) {
	i := seq()
	name := fmt.Sprintf("member%d", i)
	u := &chat.User{ID: chat.NewIDAt(born), Username: name, Discriminator: fmt.Sprintf("%04d", 1+i%9999), DisplayName: &name}
	if err := st.InsertUser(ctx, u); err != nil {
		return nil, "", fmt.Errorf("seed user: %w", err)
	}
	token := chat.NewToken(64)
	if err := st.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: u.ID, Token: token, Name: "scale"}); err != nil {
		return nil, "", fmt.Errorf("seed session: %w", err)
	}
	return u, token, nil
}

// newServer stores a server owned by owner with channels text channels.
func newServer(ctx context.Context, st store.Store, owner chat.ID, channels int) (*chat.Server, error) {
	s := &chat.Server{ID: chat.NewID(), Owner: owner, Name: fmt.Sprintf("server %d", seq()), Channels: []chat.ID{},
		DefaultPermissions: int64(perm.DefaultServer)}
	for i := range channels {
		ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: s.ID, Name: fmt.Sprintf("channel-%d", i)}
		if err := st.InsertChannel(ctx, ch); err != nil {
			return nil, fmt.Errorf("seed channel: %w", err)
		}
		s.Channels = append(s.Channels, ch.ID)
	}
	if err := st.InsertServer(ctx, s); err != nil {
		return nil, fmt.Errorf("seed server: %w", err)
	}
	return s, nil
}

func join(ctx context.Context, st store.Store, server, user chat.ID) error {
	m := &chat.Member{ID: chat.MemberID{Server: server, User: user}, JoinedAt: chat.Now()}
	if err := st.InsertMember(ctx, m); err != nil {
		return fmt.Errorf("seed member: %w", err)
	}
	return nil
}

// measureReady seeds a user in servers servers of channels channels each
// and measures building and encoding their Ready as the events gateway
// does (default sections, JSON).
func measureReady(ctx context.Context, n *node, servers, channels, reps int) (time.Duration, int, error) {
	st := n.srv.Store
	u, token, err := newUser(ctx, st)
	if err != nil {
		return 0, 0, err
	}
	for range servers {
		s, err := newServer(ctx, st, u.ID, channels)
		if err != nil {
			return 0, 0, err
		}
		if err := join(ctx, st, s.ID, u.ID); err != nil {
			return 0, 0, err
		}
	}
	caller, err := n.srv.App.Authenticate(ctx, token, "")
	if err != nil {
		return 0, 0, err
	}
	return perOp(reps, func() (int, error) {
		ev, _, err := n.srv.App.Ready(ctx, caller, app.DefaultReadySections())
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
func measureMembers(ctx context.Context, n *node, members, reps int) (time.Duration, int, error) {
	st := n.srv.Store
	owner, token, err := newUser(ctx, st)
	if err != nil {
		return 0, 0, err
	}
	s, err := newServer(ctx, st, owner.ID, 1)
	if err != nil {
		return 0, 0, err
	}
	if err := join(ctx, st, s.ID, owner.ID); err != nil {
		return 0, 0, err
	}
	for i := 1; i < members; i++ {
		u, _, err := newUser(ctx, st)
		if err != nil {
			return 0, 0, err
		}
		m := &chat.Member{ID: chat.MemberID{Server: s.ID, User: u.ID}, JoinedAt: chat.Now()}
		if i%10 == 0 {
			nick := fmt.Sprintf("nick %d", i)
			m.Nickname = &nick
		}
		if err := st.InsertMember(ctx, m); err != nil {
			return 0, 0, fmt.Errorf("seed member: %w", err)
		}
	}
	caller, err := n.srv.App.Authenticate(ctx, token, "")
	if err != nil {
		return 0, 0, err
	}
	var body []byte
	cpu, size, err := perOp(reps, func() (int, error) {
		body, err = n.srv.App.FetchMembersJSON(ctx, caller, s.ID, false)
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
	inserted   int
}

var sw *searchWorld

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
func measureSearch(ctx context.Context, n *node, add, total, reps int) ([]searchResult, float64, error) {
	st := n.srv.Store
	if sw == nil {
		u, token, err := newUser(ctx, st)
		if err != nil {
			return nil, 0, err
		}
		s, err := newServer(ctx, st, u.ID, 2)
		if err != nil {
			return nil, 0, err
		}
		if err := join(ctx, st, s.ID, u.ID); err != nil {
			return nil, 0, err
		}
		caller, err := n.srv.App.Authenticate(ctx, token, "")
		if err != nil {
			return nil, 0, err
		}
		sw = &searchWorld{caller: caller, big: s.Channels[0], small: s.Channels[1], server: s.ID, author: u.ID}
	}
	before, err := storeBytes(ctx, n)
	if err != nil {
		return nil, 0, err
	}
	first := time.Now().Add(-time.Duration(add) * time.Millisecond)
	batch := make([]*chat.Message, 0, 10_000)
	for i := range add {
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
		batch = append(batch, m)
		if len(batch) == cap(batch) || i == add-1 {
			if err := st.InsertMessages(ctx, batch); err != nil {
				return nil, 0, fmt.Errorf("seed messages: %w", err)
			}
			batch = batch[:0]
		}
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
					res, err := n.srv.App.SearchMessages(ctx, sw.caller, c.id, chat.MessageSearch{Query: &q, Sort: &o})
					if err != nil {
						return nil, 0, fmt.Errorf("search: %w", err)
					}
					lat = append(lat, time.Since(start))
					if word == commonWord && len(res.Messages) == 0 {
						return nil, 0, fmt.Errorf("search %q found nothing", word)
					}
				}
				slices.Sort(lat)
				out = append(out, searchResult{word: c.name + ":" + word, order: order,
					p50: lat[len(lat)/2], p99: lat[min(len(lat)-1, len(lat)*99/100)]})
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
				res, err := n.srv.App.Search(ctx, sw.caller, chat.Search{Server: &sw.server, Sort: &sort,
					Filters: &chat.SearchFilters{Content: &q}})
				if err != nil {
					return nil, 0, fmt.Errorf("server search: %w", err)
				}
				lat = append(lat, time.Since(start))
				if len(res.Messages) == 0 {
					return nil, 0, fmt.Errorf("server search %q found nothing", word)
				}
			}
			slices.Sort(lat)
			out = append(out, searchResult{word: "server:" + word, order: order,
				p50: lat[len(lat)/2], p99: lat[min(len(lat)-1, len(lat)*99/100)]})
		}
	}
	lat := make([]time.Duration, 0, reps)
	for range reps {
		start := time.Now()
		if _, err := n.srv.App.FetchNotifications(ctx, sw.caller); err != nil {
			return nil, 0, fmt.Errorf("notifications: %w", err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	out = append(out, searchResult{word: "inbox:mentions", order: "desc",
		p50: lat[len(lat)/2], p99: lat[min(len(lat)-1, len(lat)*99/100)]})
	return out, float64(after-before) / float64(add), nil
}

// storeBytes is the size of the store on disk: the SQLite file after a
// checkpoint of its write-ahead log, or PostgreSQL's messages table with
// its indexes and TOAST.
func storeBytes(ctx context.Context, n *node) (int64, error) {
	if n.dbPath != "" {
		db, err := sql.Open("sqlite", "file:"+n.dbPath)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return 0, fmt.Errorf("checkpoint: %w", err)
		}
		fi, err := os.Stat(n.dbPath)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	db, err := sql.Open("pgx", n.dbURL)
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
func analyze(ctx context.Context, n *node) error {
	if n.dbURL == "" || n.dbPath != "" {
		return nil
	}
	db, err := sql.Open("pgx", n.dbURL)
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
