// Package app holds Ermine's use cases, one per route of the interface:
// each loads what it needs from the store, asks perm, writes through the
// store and publishes the events the change causes. Transports (api,
// gateway, files) call app and never touch storage themselves.
package app

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"strings"
	"time"

	"ermine/internal/auth"
	"ermine/internal/blob"
	"ermine/internal/chat"
	"ermine/internal/nonce"
	"ermine/internal/presence"
	"ermine/internal/pubsub"
	"ermine/internal/slowmode"
	"ermine/internal/store"
	"ermine/internal/voice"
)

// Limits are the counts and sizes users are held to.
type Limits struct {
	// NewUserAge is how long after creation an account gets NewUser
	// limits instead of Default.
	NewUserAge time.Duration
	Default    UserLimits
	NewUser    UserLimits

	GroupSize        int
	MessageEmbeds    int
	MessageReplies   int
	MessageReactions int
	ServerEmoji      int
	ServerRoles      int
	ServerChannels   int
	// RestrictServerCreation lets only privileged users create servers.
	RestrictServerCreation bool

	// Uploads is the largest upload accepted per file tag, in bytes.
	Uploads map[string]int64
	// UnusedFileTTL is how long an upload may wait to be used before the
	// sweep removes it.
	UnusedFileTTL time.Duration
	// EphemeralDelay is how long an ephemeral message lives.
	EphemeralDelay time.Duration
}

// UserLimits are the limits that depend on the age of an account.
type UserLimits struct {
	OutgoingFriendRequests int
	Bots                   int
	MessageLength          int
	MessageAttachments     int
	Servers                int
}

// DefaultLimits are the limits of behaviour.md §4.2.
func DefaultLimits() Limits {
	return Limits{
		NewUserAge:       72 * time.Hour,
		Default:          UserLimits{OutgoingFriendRequests: 10, Bots: 5, MessageLength: 2000, MessageAttachments: 5, Servers: 100},
		NewUser:          UserLimits{OutgoingFriendRequests: 5, Bots: 2, MessageLength: 2000, MessageAttachments: 5, Servers: 50},
		GroupSize:        100,
		MessageEmbeds:    5,
		MessageReplies:   5,
		MessageReactions: 20,
		ServerEmoji:      100,
		ServerRoles:      200,
		ServerChannels:   200,
		Uploads: map[string]int64{
			chat.TagAttachments: 20_000_000, chat.TagAvatars: 4_000_000, chat.TagBackgrounds: 6_000_000,
			chat.TagIcons: 2_500_000, chat.TagBanners: 6_000_000, chat.TagEmojis: 500_000,
		},
		UnusedFileTTL:  time.Hour,
		EphemeralDelay: 30 * time.Minute,
	}
}

// For returns the limits of a user, by the age of their id.
func (l Limits) For(user chat.ID, now time.Time) UserLimits {
	if now.Sub(user.Time()) < l.NewUserAge {
		return l.NewUser
	}
	return l.Default
}

// Settings are the plain values the app is run with, read from the
// configuration by internal/server.
type Settings struct {
	Limits Limits
	// AppURL is the web client's address, the base of links sent by mail
	// and of notifications.
	AppURL string
	// FilesURL is the file service's public address, for the icons and
	// images of notifications.
	FilesURL string
	// InviteOnly requires a registration invite code to create an account.
	InviteOnly bool
	// WebhooksOff turns webhooks off: their use cases answer
	// FeatureDisabled.
	WebhooksOff bool
	// MailRetry is the wait before retrying a verification mail that
	// failed at account creation (doubling after); 30 s when zero.
	MailRetry time.Duration
	// PreviewLinks is how many links of a message are previewed (5 when
	// 0); PreviewWorkers how many messages are worked on at once (4 when 0).
	PreviewLinks, PreviewWorkers int
	// Instance describes the node to the operator's console.
	Instance Instance
}

// Deps are what the app needs from outside: the contracts it works
// through and the outside parties it calls, then its settings.
type Deps struct {
	Store store.Store
	Bus   pubsub.Bus
	// Blobs keeps the bytes of uploads and their previews.
	Blobs blob.Store
	Log   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	// State nodes that share users share (internal/shared); each is kept
	// in this process when nil. A shared Presence's expired leases are
	// announced offline.
	Presence  presence.Tracker
	Nonces    nonce.Guard      // guards sends against being posted twice
	Slowmodes slowmode.Windows // slowmode windows

	// Passwords hashes passwords; argon2id with auth.DefaultParams and
	// NumCPU concurrent hashes when nil.
	Passwords *auth.Hasher

	// Outside parties, each nil when its feature is off: Mailer sends
	// account mail (without it new accounts are verified at once);
	// Captcha checks answers on registration, password reset and
	// resending verification; Pusher queues push notifications; Voice
	// reaches the LiveKit nodes (join_call then answers
	// LiveKitUnavailable); Previews makes link previews.
	Mailer   Mailer
	Captcha  Captcha
	Pusher   Pusher
	Voice    voice.Service
	Previews LinkPreviewer

	Settings Settings
}

// App runs the use cases. Beside the dependencies every use case shares,
// each feature keeps its own parts (and closes its own background work).
type App struct {
	store    store.Store
	log      *slog.Logger
	now      func() time.Time
	online   presence.Tracker
	voice    voice.Service // nil when voice is off
	settings Settings

	events eventState // the bus, and the member lists an event may change
	login  loginState // password hashing and policy, captcha, sessions' last sightings
	mail   mailState  // account mail and its retries
	push   pushState  // push notifications being looked up
	files  fileState  // upload bytes, their locks, default avatars
	sends  sendState  // sent messages: nonces, slowmode, group commit, write-behind, previews
}

// New returns an App over its dependencies.
func New(d Deps) *App {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Presence == nil {
		d.Presence = presence.NewMemory()
	}
	if d.Slowmodes == nil {
		d.Slowmodes = slowmode.NewMemory(d.Now)
	}
	if d.Nonces == nil {
		d.Nonces = nonce.NewMemory(0)
	}
	if d.Passwords == nil {
		d.Passwords = auth.NewHasher(auth.DefaultParams(), 0)
	}
	set := d.Settings
	if set.MailRetry <= 0 {
		set.MailRetry = 30 * time.Second
	}
	if set.PreviewLinks == 0 {
		set.PreviewLinks = 5
	}
	if set.PreviewWorkers == 0 {
		set.PreviewWorkers = 4
	}
	set.AppURL = strings.TrimRight(set.AppURL, "/")
	set.FilesURL = strings.TrimRight(set.FilesURL, "/")
	policy, err := auth.NewPolicy()
	if err != nil {
		// The list is embedded in the binary: failing to read it is a
		// broken build, not a runtime condition.
		panic("app: " + err.Error())
	}
	access := newAccessCache(d.Bus, d.Now, d.Log.ErrorContext)
	st := &accessStore{Store: d.Store, cache: access}
	a := &App{store: st, log: d.Log, now: d.Now, online: d.Presence, voice: d.Voice, settings: set,
		events: eventState{bus: d.Bus, members: newMemberCache(d.Bus), access: access},
		login: loginState{passwords: d.Passwords, policy: policy, captcha: d.Captcha,
			lastSeen: newLastSeen(st, d.Log.ErrorContext)},
		mail:  mailState{mailer: d.Mailer, closing: make(chan struct{})},
		push:  pushState{pusher: d.Pusher},
		files: fileState{blobs: d.Blobs, seed: maphash.MakeSeed()},
		sends: sendState{nonces: d.Nonces, slowmodes: d.Slowmodes,
			writer:       newMessageWriter(st, store.Writers(d.Store)),
			lastMessages: newLastMessages(st, d.Log.ErrorContext)},
	}
	a.sends.previews = startPreviews(a, d.Previews, set.PreviewLinks, set.PreviewWorkers)
	if e, ok := d.Presence.(presence.Expiring); ok {
		e.OnExpire(a.announcePresence)
	}
	return a
}

// Close stops the app's background work and writes what it holds back
// in memory (the channels' newest message ids, sessions' last sightings)
// to the store. The server calls it after the last request and before
// closing the store.
func (a *App) Close() error {
	a.mail.close()
	a.push.close()
	a.sends.close()
	a.login.close()
	a.events.close()
	return nil
}

// Health checks the store can be reached.
func (a *App) Health(ctx context.Context) error {
	return a.store.Ping(ctx)
}

// notFound maps a store miss to the client's NotFound and passes other
// errors through, so use cases can write `return notFound(err)`.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return chat.ErrNotFound.Wrap(err)
	}
	return err
}

// dbError wraps a storage failure with context for the log.
func dbError(op string, err error) error {
	if err == nil {
		return nil
	}
	var ce *chat.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, store.ErrInvalid) {
		// Text the API should have refused; the same answer on every store.
		return chat.ErrInvalidBody("body: must not contain NUL characters").Wrap(err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
