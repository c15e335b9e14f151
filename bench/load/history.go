package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/testbed"
)

// historyBatch is how many messages one InsertMessages call stores.
const historyBatch = 10_000

// historyLoad fills one channel with o.historyMessages messages and times
// pages of 50: the newest page, pages before a random message and pages
// around one, each through the app (server time, no HTTP) and over HTTP.
func historyLoad(ctx context.Context, n *testbed.Node, o options, out io.Writer) error {
	w, err := seed(ctx, n, "reader", 1, 1, 1)
	if err != nil {
		return err
	}
	ch, author := w.channels[0], w.users[0]
	fmt.Fprintf(out, "history: storing %d messages in one channel (%s)...\n", o.historyMessages, n.StoreName)
	start := time.Now()
	ids := make([]chat.ID, 0, o.historyMessages)
	// Ids a millisecond apart, ending now, like a long-lived busy channel.
	first := time.Now().Add(-time.Duration(o.historyMessages) * time.Millisecond)
	batch := make([]*chat.Message, 0, historyBatch)
	for i := range o.historyMessages {
		content := fmt.Sprintf("history message number %d of the load generator", i)
		m := &chat.Message{ID: chat.NewIDAt(first.Add(time.Duration(i) * time.Millisecond)), Channel: ch,
			Author: author.ID, Content: &content}
		ids = append(ids, m.ID)
		batch = append(batch, m)
		if len(batch) == historyBatch || i == o.historyMessages-1 {
			if err := n.Store.InsertMessages(ctx, batch); err != nil {
				return fmt.Errorf("insert history: %w", err)
			}
			batch = batch[:0]
		}
	}
	fmt.Fprintf(out, "  stored in %.1fs\n", time.Since(start).Seconds())

	caller, err := n.App.Authenticate(ctx, author.Token, "")
	if err != nil {
		return err
	}
	// Each kind of page gets its own sessions (see timeHTTP).
	per := (o.historyPages + 13) / 14
	tokens := []string{}
	for len(tokens) < 3*per {
		t := chat.NewToken(64)
		if err := n.Store.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: author.ID, Token: t, Name: "load"}); err != nil {
			return fmt.Errorf("seed session: %w", err)
		}
		tokens = append(tokens, t)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	limit := int64(50)
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []struct {
		name  string
		query func() chat.MessageQuery
		param func(q chat.MessageQuery) string
	}{
		{"newest 50", func() chat.MessageQuery { return chat.MessageQuery{Limit: &limit} },
			func(chat.MessageQuery) string { return "limit=50" }},
		{"50 before a random message", func() chat.MessageQuery {
			id := ids[rng.IntN(len(ids))]
			return chat.MessageQuery{Limit: &limit, Before: &id}
		}, func(q chat.MessageQuery) string { return "limit=50&before=" + string(*q.Before) }},
		{"50 around a random message", func() chat.MessageQuery {
			id := ids[rng.IntN(len(ids))]
			return chat.MessageQuery{Limit: &limit, Nearby: &id}
		}, func(q chat.MessageQuery) string { return "limit=50&nearby=" + string(*q.Nearby) }},
	}
	for ki, k := range kinds {
		server, err := timeApp(ctx, n.App, caller, ch, o.historyPages, k.query)
		if err != nil {
			return err
		}
		round, err := timeHTTP(ctx, client, n.URL, tokens[ki*per:(ki+1)*per], ch, o.historyPages, func() string { return k.param(k.query()) })
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s\n    server time  %s\n    HTTP round trip %s\n", k.name, server, round)
	}
	return nil
}

// timeApp times QueryMessages, the whole use case (channel and permission
// lookups, the page query, decoding) without HTTP.
func timeApp(ctx context.Context, a *app.App, c *app.Caller, ch chat.ID, pages int, q func() chat.MessageQuery) (string, error) {
	lat := make([]time.Duration, 0, pages)
	for range pages {
		query := q()
		start := time.Now()
		res, err := a.QueryMessages(ctx, c, ch, query)
		if err != nil {
			return "", fmt.Errorf("query messages: %w", err)
		}
		lat = append(lat, time.Since(start))
		if len(res.Messages) == 0 {
			return "", fmt.Errorf("query messages: empty page")
		}
	}
	return testbed.Describe(lat), nil
}

// timeHTTP times GET /channels/{id}/messages end to end over loopback.
// The channels rate limit allows 15 calls per 10 s to one session, so the
// requests rotate over tokens, one session for every 14 pages.
func timeHTTP(ctx context.Context, client *http.Client, base string, tokens []string, ch chat.ID, pages int, param func() string) (string, error) {
	lat := make([]time.Duration, 0, pages)
	for i := range pages {
		token := tokens[i%len(tokens)]
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/channels/"+string(ch)+"/messages?"+param(), nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("X-Session-Token", token)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return "", err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(start))
		if res.StatusCode != http.StatusOK {
			return "", fmt.Errorf("GET history: %d", res.StatusCode)
		}
	}
	return testbed.Describe(lat), nil
}
