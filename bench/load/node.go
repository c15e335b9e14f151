package main

import (
	"context"
	"runtime"

	"ermine/internal/chat"
	"ermine/internal/testbed"
)

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }

// world is what the load runs against: users who are all members of
// every server, and the servers' channels.
type world struct {
	users    []testbed.User
	channels []chat.ID
}

// seed creates users named name0, name1, ... with sessions, servers
// with the channels spread evenly among them, and every user's
// membership of every server, directly in the node's store. name must
// differ between seeds of one node.
func seed(ctx context.Context, n *testbed.Node, name string, users, servers, channels int) (*world, error) {
	s := &testbed.Seeder{Store: n.Store, Name: name}
	w := &world{}
	var err error
	if w.users, err = s.Users(ctx, users, testbed.UserOptions{}); err != nil {
		return nil, err
	}
	for i := range servers {
		// Channels i, i+servers, i+2·servers, ... of the load.
		srv, err := s.Server(ctx, w.users[0].ID, (channels-i+servers-1)/servers)
		if err != nil {
			return nil, err
		}
		w.channels = append(w.channels, srv.Channels...)
		if err := s.Join(ctx, srv.ID, w.users, nil); err != nil {
			return nil, err
		}
	}
	return w, nil
}
