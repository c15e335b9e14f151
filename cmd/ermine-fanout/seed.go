package main

import (
	"context"
	"fmt"
	"time"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/perm"
	"ermine/internal/server"
	"ermine/internal/store"
)

// world is what the load runs against.
type world struct {
	users   []member // users[0] sends the messages
	channel chat.ID
}

// member is a user with a session token.
type member struct {
	id    chat.ID
	token string
}

// seedBatch is how many users are written per transaction.
const seedBatch = 500

// seed writes n users with sessions, a server owned by the first with one
// text channel, and every user's membership into the SQLite store of the
// data directory dir, which the server opens afterwards.
func seed(ctx context.Context, dir string, n int, visible bool) (*world, error) {
	cfg := config.Default()
	cfg.Data = dir
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	// Established accounts, older than the new-user window.
	born := time.Now().Add(-30 * 24 * time.Hour)
	var status *chat.UserStatus
	if !visible {
		invisible := chat.PresenceInvisible
		status = &chat.UserStatus{Presence: &invisible}
	}
	w := &world{users: make([]member, n)}
	for i := range w.users {
		w.users[i] = member{id: chat.NewIDAt(born), token: chat.NewToken(64)}
	}
	srv := &chat.Server{ID: chat.NewID(), Owner: w.users[0].id, Name: "fanout",
		DefaultPermissions: int64(perm.DefaultServer)}
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: srv.ID, Name: "everyone"}
	srv.Channels = []chat.ID{ch.ID}
	w.channel = ch.ID
	for lo := 0; lo < n; lo += seedBatch {
		batch := w.users[lo:min(lo+seedBatch, n)]
		err := st.InTx(ctx, func(tx store.Store) error {
			for i, u := range batch {
				name := fmt.Sprintf("fanout%d", lo+i)
				email := name + "@ermine.test"
				if err := tx.InsertAccount(ctx, &chat.Account{ID: u.id, Email: email, EmailNormalised: email,
					PasswordHash: "!", Verified: true}); err != nil {
					return fmt.Errorf("seed account: %w", err)
				}
				if err := tx.InsertUser(ctx, &chat.User{ID: u.id, Username: name, Discriminator: "0001",
					Status: status}); err != nil {
					return fmt.Errorf("seed user: %w", err)
				}
				if err := tx.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: u.id, Token: u.token,
					Name: "fanout"}); err != nil {
					return fmt.Errorf("seed session: %w", err)
				}
			}
			if lo == 0 {
				if err := tx.InsertServer(ctx, srv); err != nil {
					return fmt.Errorf("seed server: %w", err)
				}
				if err := tx.InsertChannel(ctx, ch); err != nil {
					return fmt.Errorf("seed channel: %w", err)
				}
			}
			for _, u := range batch {
				m := &chat.Member{ID: chat.MemberID{Server: srv.ID, User: u.id}, JoinedAt: chat.Now()}
				if err := tx.InsertMember(ctx, m); err != nil {
					return fmt.Errorf("seed member: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}
