package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// reconnectCost is what reconnecting a batch of clients cost: the
// server's CPU and the bytes each client read up to its Ready or
// Resumed.
type reconnectCost struct {
	n, resumed int
	cpu        float64 // µs of server CPU per reconnect
	bytes      float64 // bytes received per reconnect, up to Ready or Resumed
	elapsed    time.Duration
}

// drop closes the clients' sockets and waits until their readers ended.
func drop(clients []*client) {
	for _, c := range clients {
		c.conn.Close()
	}
	for _, c := range clients {
		if c.done != nil {
			<-c.done
		}
	}
}

// redial reconnects each of clients (already dropped) to addr, dialers
// at a time, in place: with resume "1" each asks for a resumable
// connection and a full Ready, with resume "" each resumes its stream
// after its last seq. A dial that fails is retried until deadline (the
// node may be restarting). The replacements' readers record into rec.
func redial(ctx context.Context, addr string, w *world, rec *recorder, clients []*client, dialers int,
	resume string, deadline time.Time) error {
	return inParallel(ctx, len(clients), dialers, func(i int) error {
		old := clients[i]
		ask := resume
		if ask == "" {
			ask = old.resumeID
		}
		for {
			c, err := dialResume(ctx, targetErmine, addr, w.users[old.index].Token, old.index, old.seen, ask, old.seq.Load())
			if err == nil {
				clients[i] = c
				go c.read(rec)
				return nil
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("connection %d: %w", old.index, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// measureReconnect drops the clients and reconnects them with resume
// (see redial), measuring the server's CPU and the bytes read per
// reconnect. The dropped sockets' closing is left a second to settle
// first, so it is not counted.
func measureReconnect(ctx context.Context, servers cluster, w *world, rec *recorder, clients []*client, resume string) (reconnectCost, error) {
	cost := reconnectCost{n: len(clients)}
	drop(clients)
	sleep(ctx, time.Second)
	user, sys, err := servers.cpu()
	if err != nil {
		return cost, err
	}
	start := time.Now()
	if err := redial(ctx, servers[0].Addr, w, rec, clients, 16, resume, time.Now().Add(time.Minute)); err != nil {
		return cost, err
	}
	cost.elapsed = time.Since(start)
	u, s, err := servers.cpu()
	if err != nil {
		return cost, err
	}
	var bytes int64
	for _, c := range clients {
		bytes += c.received
		if c.resumed {
			cost.resumed++
		}
	}
	cost.cpu = float64((u + s - user - sys).Microseconds()) / float64(len(clients))
	cost.bytes = float64(bytes) / float64(len(clients))
	return cost, nil
}

// reconnectPhase is the reconnect row of make compare: a batch of the
// connected clients drops and reconnects with a full Ready (asking for
// a resumable connection), then drops again and resumes each stream
// after its last seq. Nothing is sent meanwhile, so a resume replays
// nothing: the figures are the fixed cost of each way back.
func reconnectPhase(ctx context.Context, servers cluster, w *world, rec *recorder, clients []*client, out io.Writer) (full, resumed reconnectCost, err error) {
	if len(servers) != 1 {
		return full, resumed, errors.New("the reconnect phase runs on one node")
	}
	full, err = measureReconnect(ctx, servers, w, rec, clients, "1")
	if err != nil {
		return full, resumed, fmt.Errorf("full reconnect: %w", err)
	}
	resumed, err = measureReconnect(ctx, servers, w, rec, clients, "")
	if err != nil {
		return full, resumed, fmt.Errorf("resume: %w", err)
	}
	fmt.Fprintf(out, "reconnect of %d connections:\n", len(clients))
	fmt.Fprintf(out, "  full Ready: %s; server CPU %.0f µs and %.0f bytes received per reconnect\n",
		full.elapsed.Round(time.Millisecond), full.cpu, full.bytes)
	fmt.Fprintf(out, "  resume: %s; %d of %d resumed; server CPU %.0f µs and %.0f bytes received per reconnect\n",
		resumed.elapsed.Round(time.Millisecond), resumed.resumed, resumed.n, resumed.cpu, resumed.bytes)
	return full, resumed, nil
}
