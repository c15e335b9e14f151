package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"ermine/internal/app"
	"ermine/internal/config"
	"ermine/internal/pubsub"
	"ermine/internal/store"
)

// The admin command changes the store while a node may be serving, and
// the node must hear of it (a disabled user's sockets get Logout, a wipe
// reaches the user's audience). With a shared bus (NATS, Redis) the
// command publishes its events there like any node. With the in-process
// bus there is nothing to publish on from another process, so the
// command writes its frames into the store (relay_events) and the
// serving node takes them out and publishes them on its own bus within
// relayInterval.

// relayInterval is how often a node on the in-process bus looks for
// events written by the admin command.
const relayInterval = 500 * time.Millisecond

// relayBatch is how many relayed frames are taken at a time.
const relayBatch = 256

// relayExpiry is how long a relayed frame waits for a node. A running
// node takes frames within relayInterval; an older frame was written
// while no node ran, and every client connecting since got a fresh Ready
// that already holds its change.
const relayExpiry = time.Minute

// relayBus is the bus the admin command publishes on when the node
// uses the in-process bus: frames are kept in the store for the node.
type relayBus struct{ st store.Store }

func (b relayBus) Publish(ctx context.Context, topic string, msg []byte) error {
	if !pubsub.ValidTopic(topic) {
		return pubsub.ErrInvalidTopic
	}
	return b.st.InsertRelayEvent(ctx, topic, msg)
}

func (b relayBus) Subscribe(pubsub.Handler) (pubsub.Subscription, error) {
	return nil, errors.New("relay bus: the admin command does not subscribe")
}

func (relayBus) Close() error { return nil }

// Admin is what the admin command works with: the app over the
// configured store, publishing where running nodes hear it.
type Admin struct {
	App *app.App
	// Relayed says events go through the store to a node on the
	// in-process bus rather than over a shared bus.
	Relayed bool
	close   []func() error
}

// Close releases the store and bus.
func (a *Admin) Close() error {
	var errs []error
	if err := a.App.Close(); err != nil {
		errs = append(errs, err)
	}
	for i := len(a.close) - 1; i >= 0; i-- {
		errs = append(errs, a.close[i]())
	}
	return errors.Join(errs...)
}

// OpenAdmin opens the configured store and bus for the admin command.
func OpenAdmin(ctx context.Context, cfg config.Config, log *slog.Logger) (*Admin, error) {
	if err := CheckInstance(ctx, cfg); err != nil {
		return nil, err
	}
	release, err := LockDataDir(cfg.Data, false)
	if err != nil {
		return nil, err
	}
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		_ = release()
		return nil, err
	}
	ad := &Admin{close: []func() error{release, st.Close}}
	var bus pubsub.Bus = relayBus{st: st}
	ad.Relayed = true
	if cfg.Bus.Kind == config.BusNATS || cfg.Bus.Kind == config.BusRedis {
		if bus, err = openBus(cfg); err != nil {
			st.Close()
			_ = release()
			return nil, err
		}
		ad.Relayed = false
		ad.close = append(ad.close, bus.Close)
	}
	public := cfg.PublicURLs(cfg.Listen)
	ad.App = app.New(app.Deps{Store: st, Bus: bus, Log: log, Passwords: passwordHasher(cfg.Passwords),
		Settings: app.Settings{Limits: appLimits(cfg), AppURL: public.AppURL}})
	return ad, nil
}

// startRelay publishes, on a node using the in-process bus, the events
// the admin command left in the store.
func (s *Server) startRelay(ctx context.Context) {
	// Events left while no node ran concern no connection: every client
	// connecting now gets a fresh Ready. They are dropped.
	if _, err := s.store.TakeRelayEvents(ctx, 0, time.Now()); err != nil {
		s.log.Error("drop stale admin events", "err", err)
	}
	s.every(ctx, relayInterval, func(ctx context.Context) {
		for {
			evs, err := s.store.TakeRelayEvents(ctx, relayBatch, time.Now().Add(-relayExpiry))
			if err != nil {
				if ctx.Err() == nil {
					s.log.Error("relay admin events", "err", err)
				}
				return
			}
			for _, e := range evs {
				if err := s.bus.Publish(ctx, e.Topic, e.Frame); err != nil {
					s.log.Error("relay admin event", "topic", e.Topic, "err", err)
				}
			}
			if len(evs) < relayBatch {
				return
			}
		}
	})
}
