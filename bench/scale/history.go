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
)

// history times pages of 50 of the search world's big channel, as it
// stands: the newest page, pages before a random message and pages
// around one, each through the app (server time, no HTTP) and over
// loopback HTTP, pages times each.
func (g *growth) history(ctx context.Context, pages int) ([]searchResult, error) {
	sw, n := g.sw, g.node
	// The channels rate limit allows 15 calls per 10 s to one session, so
	// the requests rotate over sessions, one for every 14 pages of a kind.
	per := (pages + 13) / 14
	tokens := []string{}
	for len(tokens) < 3*per {
		t, err := g.seed.Session(ctx, sw.author)
		if err != nil {
			return nil, err
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
		{"50 before random", func() chat.MessageQuery {
			id := sw.ids[rng.IntN(len(sw.ids))]
			return chat.MessageQuery{Limit: &limit, Before: &id}
		}, func(q chat.MessageQuery) string { return "limit=50&before=" + string(*q.Before) }},
		{"50 around random", func() chat.MessageQuery {
			id := sw.ids[rng.IntN(len(sw.ids))]
			return chat.MessageQuery{Limit: &limit, Nearby: &id}
		}, func(q chat.MessageQuery) string { return "limit=50&nearby=" + string(*q.Nearby) }},
	}
	var out []searchResult
	for ki, k := range kinds {
		server, err := timeApp(ctx, n.App, sw.caller, sw.big, pages, k.query)
		if err != nil {
			return nil, err
		}
		round, err := timeHTTP(ctx, client, n.URL, tokens[ki*per:(ki+1)*per], sw.big, pages, func() string { return k.param(k.query()) })
		if err != nil {
			return nil, err
		}
		out = append(out, quantiles(k.name, "server", server), quantiles(k.name, "HTTP", round))
	}
	return out, nil
}

// timeApp times QueryMessages, the whole use case (channel and permission
// lookups, the page query, decoding) without HTTP.
func timeApp(ctx context.Context, a *app.App, c *app.Caller, ch chat.ID, pages int, q func() chat.MessageQuery) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, pages)
	for range pages {
		query := q()
		start := time.Now()
		res, err := a.QueryMessages(ctx, c, ch, query)
		if err != nil {
			return nil, fmt.Errorf("query messages: %w", err)
		}
		lat = append(lat, time.Since(start))
		if len(res.Messages) == 0 {
			return nil, fmt.Errorf("query messages: empty page")
		}
	}
	return lat, nil
}

// timeHTTP times GET /channels/{id}/messages end to end over loopback,
// rotating over tokens.
func timeHTTP(ctx context.Context, client *http.Client, base string, tokens []string, ch chat.ID, pages int, param func() string) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, pages)
	for i := range pages {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/channels/"+string(ch)+"/messages?"+param(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Session-Token", tokens[i%len(tokens)])
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(start))
		if res.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET history: %d", res.StatusCode)
		}
	}
	return lat, nil
}
