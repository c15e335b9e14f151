// Package app holds Ermine's use cases, one per route of the interface:
// each loads what it needs from the store, asks perm, writes through the
// store and publishes the events the change causes. Transports (api,
// gateway, files) call app and never touch storage themselves.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"ermine/internal/auth"
	"ermine/internal/avatar"
	"ermine/internal/batch"
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

// Deps are what the app needs from outside.
type Deps struct {
	Store store.Store
	Bus   pubsub.Bus
	// Blobs keeps the bytes of uploads and their previews.
	Blobs  blob.Store
	Log    *slog.Logger
	Limits Limits
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Presence tracks connected users; an in-process tracker when nil.
	// Nodes that share users pass a shared one (presence.Shared), whose
	// expired leases the app announces offline.
	Presence presence.Tracker
	// Nonces guards sends against being posted twice; in-process when
	// nil. Nodes that share users pass a shared one (nonce.Redis).
	Nonces nonce.Guard
	// Slowmodes keeps slowmode windows; in-process when nil. Nodes that
	// share users pass a shared implementation (slowmode.Redis).
	Slowmodes slowmode.Windows

	// Mailer sends account mail (verification, password reset, deletion);
	// nil when email is off, and then new accounts are verified at once.
	Mailer Mailer
	// AppURL is the web client's address, the base of links sent by mail.
	AppURL string
	// InviteOnly requires a registration invite code to create an account.
	InviteOnly bool
	// Captcha checks captcha answers on registration, password reset and
	// resending verification; nil when captcha is off.
	Captcha Captcha
	// MailRetry is the wait before retrying a verification mail that
	// failed at account creation (doubling after); 30 s when zero.
	MailRetry time.Duration
	// Pusher queues Web Push notifications; nil when push is off.
	Pusher Pusher
	// FilesURL is the file service's public address, for the icons and
	// images of notifications.
	FilesURL string
	// Passwords hashes passwords; argon2id with auth.DefaultParams and
	// NumCPU concurrent hashes when nil.
	Passwords *auth.Hasher
	// Voice reaches the LiveKit nodes behind voice channels; nil when
	// voice is off (join_call then answers LiveKitUnavailable).
	Voice voice.Service

	// Previews makes link previews; nil when they are off.
	Previews LinkPreviewer
	// PreviewLinks is how many links of a message are previewed (5 when
	// 0); PreviewWorkers how many messages are worked on at once (4 when 0).
	PreviewLinks, PreviewWorkers int
	// WebhooksOff turns webhooks off: their use cases answer
	// FeatureDisabled.
	WebhooksOff bool

	// Instance describes the node to the operator's console.
	Instance Instance
}

// App runs the use cases.
type App struct {
	store     store.Store
	bus       pubsub.Bus
	log       *slog.Logger
	limits    Limits
	now       func() time.Time
	online    presence.Tracker
	slowmodes slowmode.Windows
	blobs     blob.Store
	files     fileState

	avatars avatar.Defaults // drawn on first use

	mailer     Mailer
	appURL     string
	inviteOnly bool
	captcha    Captcha
	passwords  *auth.Hasher
	policy     *auth.Policy
	pusher     Pusher
	filesURL   string
	pushing    sync.WaitGroup // notifications being looked up
	mailRetry  time.Duration
	mailing    sync.WaitGroup // mails being retried
	closing    chan struct{}  // closed by Close
	closeOnce  sync.Once
	voice      voice.Service
	// webhooksOff makes every webhook use case answer FeatureDisabled.
	webhooksOff bool
	instance    Instance

	dummyOnce sync.Once // dummy is made on the first login of an unknown address
	dummy     string
	dummyErr  error

	nonces       nonce.Guard                          // recent idempotency keys of sent messages
	lastMessages *batch.Coalescer[chat.ID, chat.ID]   // channels' newest messages, written in batches
	noMobilePush sync.Once                            // says once that mobile push is not configured
	lastSeen     *batch.Coalescer[chat.ID, chat.Time] // sessions' last sightings, written in batches
	writer       *batch.GroupCommit[*chat.Message]    // group commit of new messages
	previews     *previews                            // link preview workers; nil when off
	members      *memberCache                         // encoded member lists of big servers
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
	if d.MailRetry <= 0 {
		d.MailRetry = 30 * time.Second
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
	policy, err := auth.NewPolicy()
	if err != nil {
		// The list is embedded in the binary: failing to read it is a
		// broken build, not a runtime condition.
		panic("app: " + err.Error())
	}
	if d.PreviewLinks == 0 {
		d.PreviewLinks = 5
	}
	if d.PreviewWorkers == 0 {
		d.PreviewWorkers = 4
	}
	a := &App{store: d.Store, bus: d.Bus, log: d.Log, limits: d.Limits, now: d.Now, online: d.Presence,
		mailer: d.Mailer, appURL: strings.TrimRight(d.AppURL, "/"), inviteOnly: d.InviteOnly, captcha: d.Captcha,
		passwords: d.Passwords, policy: policy, blobs: d.Blobs, slowmodes: d.Slowmodes, webhooksOff: d.WebhooksOff, voice: d.Voice,
		pusher: d.Pusher, filesURL: strings.TrimRight(d.FilesURL, "/"),
		mailRetry: d.MailRetry, closing: make(chan struct{}), instance: d.Instance,
		nonces:       d.Nonces,
		lastMessages: newLastMessages(d.Store, d.Log.ErrorContext),
		lastSeen:     newLastSeen(d.Store, d.Log.ErrorContext),
		writer:       newMessageWriter(d.Store),
	}
	a.previews = startPreviews(a, d.Previews, d.PreviewLinks, d.PreviewWorkers)
	a.members = newMemberCache(d.Bus)
	if e, ok := d.Presence.(presence.Expiring); ok {
		e.OnExpire(a.announcePresence)
	}
	return a
}

// Close writes what the app holds back in memory (the channels' newest
// message ids, sessions' last sightings) to the store. The server calls it after the last request
// and before closing the store.
func (a *App) Close() error {
	a.closeOnce.Do(func() { close(a.closing) })
	a.mailing.Wait()
	a.pushing.Wait()
	a.previews.close()
	a.lastMessages.Close()
	a.lastSeen.Close()
	a.members.close()
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
