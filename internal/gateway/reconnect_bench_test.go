package gateway_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/chat"
	"ermine/internal/gateway"
	"ermine/internal/perm"
)

// BenchmarkReconnect compares the two ways back for a client whose
// connection dropped while 20 events it would have been sent were
// published: a full Ready (as a stock client reconnects) and a resume
// (resume=<id>&seq=<n>: Authenticated, Resumed and the 20 frames). The
// user is in 200 servers of 50 channels each (10,000 channels). Each
// iteration closes the connection, waits until the gateway has seen it
// close (held, for resume), publishes the 20 messages and reconnects,
// reading until the last of them (resume) or Ready (full).
//
// It reports the process's CPU time per reconnect (cpu-ns/op: user and
// system, from rusage; the client reading in this process is counted
// too, as is the publishing, the same in both) and the bytes the client
// received (bytes/op). The client's largest part, decoding the JSON it
// received, is measured apart after the loop by decoding the last
// reconnect's frames again while the server is idle
// (client-decode-cpu-ns/op): cpu-ns/op less it estimates the server's
// share (the client's socket reads stay counted). The client dials
// through the events lane, as the server (internal/server) serves the
// upgrades of the events paths: ReadUpgrade and Adopt, not net/http
// (laneServer). The time away does not change either cost, so the
// benchmark does not wait 30 s: a held stream costs nothing while no
// event arrives. Run:
//
//	go test -run '^$' -bench BenchmarkReconnect -benchtime 20x ./internal/gateway/
func BenchmarkReconnect(b *testing.B) {
	const servers, channels, missed = 200, 50, 20
	h := newHarness(b, gateway.Options{UnauthenticatedPerIP: 1 << 20})
	h.url = laneServer(b, h)
	ctx := b.Context()
	owner, _ := h.user("owner")
	me, token := h.user("me")
	invisible := chat.PresenceInvisible
	for _, u := range []*chat.User{owner, me} {
		u.Status = &chat.UserStatus{Presence: &invisible}
		if err := h.store.UpdateUser(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	var targets []chat.ID
	for i := range servers {
		s := &chat.Server{ID: chat.NewID(), Owner: owner.ID, Name: "server " + strconv.Itoa(i), DefaultPermissions: int64(perm.DefaultServer)}
		for j := range channels {
			ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: s.ID, Name: fmt.Sprint("channel-", j)}
			s.Channels = append(s.Channels, ch.ID)
			if err := h.store.InsertChannel(ctx, ch); err != nil {
				b.Fatal(err)
			}
			if j == 0 {
				targets = append(targets, ch.ID)
			}
		}
		if err := h.store.InsertServer(ctx, s); err != nil {
			b.Fatal(err)
		}
		h.join(s.ID, owner.ID)
		h.join(s.ID, me.ID)
	}
	publishMissed := func() {
		for i := range missed {
			message(h, targets[i%len(targets)], owner.ID, "a message published while the client was away")
		}
	}
	dial := func(q url.Values) *websocket.Conn {
		c, _, err := websocket.Dial(context.Background(), h.url+"?"+q.Encode(), nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(16 << 20)
		return c
	}
	// read reads one frame and returns it, adding its size to bytes.
	var received [][]byte // the frames of the current reconnect
	read := func(c *websocket.Conn, bytes *int64) packet {
		_, data, err := c.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		*bytes += int64(len(data))
		received = append(received, data)
		var p packet
		if err := jsonUnmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
		return p
	}
	waitFor := func(done func(gateway.Stats) bool) {
		deadline := time.Now().Add(10 * time.Second)
		for !done(h.gw.Stats()) {
			if time.Now().After(deadline) {
				b.Fatalf("the gateway did not see the connection close: %+v", h.gw.Stats())
			}
			time.Sleep(time.Millisecond)
		}
	}
	report := func(b *testing.B, cpu time.Duration, bytes int64) {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(bytes)/float64(b.N), "bytes/op")
		const rounds = 5
		start := cpuTime()
		for range rounds {
			for _, data := range received {
				var p packet
				if err := jsonUnmarshal(data, &p); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/rounds, "client-decode-cpu-ns/op")
	}

	b.Run("FullReady", func(b *testing.B) {
		q := url.Values{"version": {"1"}, "format": {"json"}, "token": {token}}
		c := dial(q)
		var bytes int64
		read(c, &bytes)
		read(c, &bytes)
		var used time.Duration
		bytes = 0
		b.ResetTimer()
		for range b.N {
			_ = c.CloseNow()
			waitFor(func(s gateway.Stats) bool { return s.Connections == 0 })
			received = received[:0]
			start := cpuTime()
			publishMissed()
			c = dial(q)
			if p := read(c, &bytes); p.Type() != "Authenticated" {
				b.Fatalf("got %v", p)
			}
			if p := read(c, &bytes); p.Type() != "Ready" {
				b.Fatalf("got %v", p)
			}
			used += cpuTime() - start
		}
		b.StopTimer()
		_ = c.CloseNow()
		report(b, used, bytes)
	})

	b.Run("Resume", func(b *testing.B) {
		q := url.Values{"version": {"1"}, "format": {"json"}, "token": {token}, "resume": {"1"}}
		c := dial(q)
		var bytes int64
		read(c, &bytes)
		ready := read(c, &bytes)
		id, last := str(ready, "resume_id"), seqOf(ready)
		var used time.Duration
		bytes = 0
		b.ResetTimer()
		for range b.N {
			_ = c.CloseNow()
			// Held as it is unregistered: gone from Connections.
			waitFor(func(s gateway.Stats) bool { return s.Connections == 0 })
			received = received[:0]
			start := cpuTime()
			publishMissed()
			c = dial(url.Values{"version": {"1"}, "format": {"json"}, "token": {token},
				"resume": {id}, "seq": {strconv.FormatInt(last, 10)}})
			if p := read(c, &bytes); p.Type() != "Authenticated" {
				b.Fatalf("got %v", p)
			}
			if p := read(c, &bytes); p.Type() != "Resumed" {
				b.Fatalf("got %v, want Resumed", p)
			}
			for got := 0; got < missed; {
				p := read(c, &bytes)
				if p.Type() == "Message" {
					got++
				}
				last = seqOf(p)
			}
			used += cpuTime() - start
		}
		b.StopTimer()
		_ = c.CloseNow()
		report(b, used, bytes)
	})
}
