package main

import (
	"context"
	"strings"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/server"
	"ermine/internal/testbed"
)

// world is what the load runs against.
type world struct {
	kind    target
	users   []testbed.User // users[0] sends the messages
	channel chat.ID
}

// seed writes n users with accounts and sessions, a server owned by the
// first with one text channel, and every user's membership into the
// store the servers open afterwards: the SQLite store of the data
// directory dir, or the PostgreSQL database env's ERMINE_DATABASE_URL
// names.
func seed(ctx context.Context, dir string, env []string, n int, visible bool) (*world, error) {
	cfg := config.Default()
	cfg.Data = dir
	for _, kv := range env {
		if u, ok := strings.CutPrefix(kv, "ERMINE_DATABASE_URL="); ok {
			cfg.Database.URL = u
		}
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s := &testbed.Seeder{Store: st, Name: "fanout"}
	w := &world{kind: targetErmine}
	if w.users, err = s.Users(ctx, n, testbed.UserOptions{Account: true, Invisible: !visible}); err != nil {
		return nil, err
	}
	srv, err := s.Server(ctx, w.users[0].ID, 1)
	if err != nil {
		return nil, err
	}
	w.channel = srv.Channels[0]
	return w, s.Join(ctx, srv.ID, w.users, nil)
}

// nodeEnv is the environment of every node of a several-node run.
func (o options) nodeEnv() []string {
	var env []string
	if o.bus != "" {
		env = append(env, "ERMINE_BUS_KIND="+o.bus, "ERMINE_BUS_URL="+o.busURL)
	}
	if o.sharedURL != "" {
		env = append(env, "ERMINE_SHARED_URL="+o.sharedURL)
	}
	return env
}
