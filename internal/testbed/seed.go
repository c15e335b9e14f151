package testbed

import (
	"context"
	"fmt"
	"time"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// Seeder writes users, servers, channels, memberships and messages
// straight into a store, in transactions of many rows: what a tool or a
// test needs in place before it measures or runs, bypassing the API and
// its rate limits.
type Seeder struct {
	Store store.Store
	// Name names what it seeds: users are Name0, Name1, ..., sessions and
	// servers are called Name.
	Name string
	// Born is when seeded users signed up: by default 30 days ago,
	// older than the new-user window, like established users.
	Born    time.Time
	next    int // the number of the next user
	servers int // servers written so far
}

// User is a seeded user and the token of their session.
type User struct {
	ID    chat.ID
	Token string
}

// UserOptions say what else a seeded user has.
type UserOptions struct {
	Account     bool // an account (email Name<i>@ermine.test, verified, no password) under the user's id
	Invisible   bool // the Invisible presence: connecting announces nobody
	DisplayName bool // a display name, the username again
	// Discriminators gives users discriminators 0001..9999 in turn;
	// otherwise every user is #0001.
	Discriminators bool
}

// batch is how many users or members one transaction writes.
const batch = 500

// messageBatch is how many messages one InsertMessages call stores.
const messageBatch = 10_000

// Users writes n users, each with a session.
func (s *Seeder) Users(ctx context.Context, n int, o UserOptions) ([]User, error) {
	born := s.Born
	if born.IsZero() {
		born = time.Now().Add(-30 * 24 * time.Hour)
	}
	var status *chat.UserStatus
	if o.Invisible {
		invisible := chat.PresenceInvisible
		status = &chat.UserStatus{Presence: &invisible}
	}
	users := make([]User, n)
	for i := range users {
		users[i] = User{ID: chat.NewIDAt(born), Token: chat.NewToken(64)}
	}
	for lo := 0; lo < n; lo += batch {
		err := s.Store.InTx(ctx, func(tx store.Store) error {
			for _, u := range users[lo:min(lo+batch, n)] {
				i := s.next
				s.next++
				name := fmt.Sprintf("%s%d", s.Name, i)
				if o.Account {
					email := name + "@ermine.test"
					if err := tx.InsertAccount(ctx, &chat.Account{ID: u.ID, Email: email, EmailNormalised: email,
						PasswordHash: "!", Verified: true}); err != nil {
						return fmt.Errorf("seed account: %w", err)
					}
				}
				user := &chat.User{ID: u.ID, Username: name, Discriminator: "0001", Status: status}
				if o.Discriminators {
					user.Discriminator = fmt.Sprintf("%04d", 1+i%9999)
				}
				if o.DisplayName {
					user.DisplayName = &name
				}
				if err := tx.InsertUser(ctx, user); err != nil {
					return fmt.Errorf("seed user: %w", err)
				}
				if err := tx.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: u.ID, Token: u.Token, Name: s.Name}); err != nil {
					return fmt.Errorf("seed session: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return users, nil
}

// Session writes another session of user and returns its token.
func (s *Seeder) Session(ctx context.Context, user chat.ID) (string, error) {
	token := chat.NewToken(64)
	if err := s.Store.InsertSession(ctx, &chat.Session{ID: chat.NewID(), UserID: user, Token: token, Name: s.Name}); err != nil {
		return "", fmt.Errorf("seed session: %w", err)
	}
	return token, nil
}

// Server writes a server named "Name k" (the k-th) owned by owner, with
// the default permissions and channels text channels named channel-0,
// channel-1, ...
func (s *Seeder) Server(ctx context.Context, owner chat.ID, channels int) (*chat.Server, error) {
	s.servers++
	srv := &chat.Server{ID: chat.NewID(), Owner: owner, Name: fmt.Sprintf("%s %d", s.Name, s.servers), Channels: []chat.ID{},
		DefaultPermissions: int64(perm.DefaultServer)}
	err := s.Store.InTx(ctx, func(tx store.Store) error {
		for i := range channels {
			ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: srv.ID, Name: fmt.Sprintf("channel-%d", i)}
			if err := tx.InsertChannel(ctx, ch); err != nil {
				return fmt.Errorf("seed channel: %w", err)
			}
			srv.Channels = append(srv.Channels, ch.ID)
		}
		if err := tx.InsertServer(ctx, srv); err != nil {
			return fmt.Errorf("seed server: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

// Join makes users members of server. nickname, when not nil, gives the
// i-th member's nickname (nil for none).
func (s *Seeder) Join(ctx context.Context, server chat.ID, users []User, nickname func(i int) *string) error {
	for lo := 0; lo < len(users); lo += batch {
		err := s.Store.InTx(ctx, func(tx store.Store) error {
			for i := lo; i < min(lo+batch, len(users)); i++ {
				m := &chat.Member{ID: chat.MemberID{Server: server, User: users[i].ID}, JoinedAt: chat.Now()}
				if nickname != nil {
					m.Nickname = nickname(i)
				}
				if err := tx.InsertMember(ctx, m); err != nil {
					return fmt.Errorf("seed member: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Messages stores n messages, message(i) being the i-th, 10,000 to a
// call of InsertMessages.
func (s *Seeder) Messages(ctx context.Context, n int, message func(i int) *chat.Message) error {
	b := make([]*chat.Message, 0, min(n, messageBatch))
	for i := range n {
		b = append(b, message(i))
		if len(b) == cap(b) || i == n-1 {
			if err := s.Store.InsertMessages(ctx, b); err != nil {
				return fmt.Errorf("seed messages: %w", err)
			}
			b = b[:0]
		}
	}
	return nil
}
