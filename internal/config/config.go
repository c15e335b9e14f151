// Package config holds Ermine's settings: their defaults, the TOML file,
// ERMINE_* environment overrides and command-line flags, and the checks
// that run before the server starts.
//
// Layers apply in this order, each winning over the one before:
// defaults, the TOML file (--config), the environment, the flags.
// Only cmd/ermine imports this package; everything else receives plain
// values taken from Config.
package config

import (
	"net/netip"
	"path/filepath"
	"strings"
	"time"
)

// Config is every setting of an Ermine node. The toml tag of each field is
// its key; its environment variable is ERMINE_ followed by the upper-cased
// key path joined with underscores (database.url is ERMINE_DATABASE_URL).
// Fields tagged secret:"true" are hidden by Masked.
type Config struct {
	Listen string `toml:"listen"` // host:port the HTTP, events and file routes listen on
	Data   string `toml:"data"`   // directory for the SQLite database and disk uploads

	Public       Public       `toml:"public"`
	Database     Database     `toml:"database"`
	Bus          Bus          `toml:"bus"`
	Shared       Shared       `toml:"shared"`
	Files        Files        `toml:"files"`
	Email        Email        `toml:"email"`
	Captcha      Captcha      `toml:"captcha"`
	Registration Registration `toml:"registration"`
	Webhooks     Webhooks     `toml:"webhooks"`
	Passwords    Passwords    `toml:"passwords"`
	Push         Push         `toml:"push"`
	Embeds       Embeds       `toml:"embeds"`
	Voice        Voice        `toml:"voice"`
	Gateway      Gateway      `toml:"gateway"`
	Limits       Limits       `toml:"limits"`
	Metrics      Metrics      `toml:"metrics"`
	Legal        Legal        `toml:"legal"`
	Log          Log          `toml:"log"`
}

// Public holds the addresses clients are told to use. Behind a reverse
// proxy they differ from the listen address; an empty value is derived
// from the listen address by PublicURLs.
type Public struct {
	APIURL    string `toml:"api_url"`    // http(s) base of the JSON API
	EventsURL string `toml:"events_url"` // ws(s) URL of the events WebSocket
	FilesURL  string `toml:"files_url"`  // http(s) base of the file service
	// EmbedsURL is the http(s) base of the link preview and image proxy
	// routes (advertised to clients as features.january.url).
	EmbedsURL string `toml:"embeds_url"`
	AppURL    string `toml:"app_url"` // http(s) URL of the web client, used in links sent by email
	// TrustedProxies are the addresses (IPs or CIDR ranges) of reverse
	// proxies in front of Ermine. A request from one of them is counted
	// against the client address its X-Forwarded-For names (rate limits,
	// the cap on unauthenticated sockets, logs) instead of the proxy's.
	TrustedProxies []string `toml:"trusted_proxies"`
}

// TrustedPrefixes returns TrustedProxies as prefixes (an address as a
// prefix of its full length); Validate has checked them.
func (p Public) TrustedPrefixes() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range p.TrustedProxies {
		if pre, err := parseTrusted(s); err == nil {
			out = append(out, pre)
		}
	}
	return out
}

func parseTrusted(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		pre, err := netip.ParsePrefix(s)
		return pre.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// Database selects the store.
type Database struct {
	// URL is empty for SQLite at <data>/ermine.db, or a postgres:// or
	// postgresql:// URL for PostgreSQL.
	URL string `toml:"url"`
	// SQLiteSynchronous is SQLite's synchronous setting in WAL mode:
	// SyncNormal survives a crash of the process, SyncFull also a power
	// loss or a crash of the machine, at the cost of an fsync per commit.
	SQLiteSynchronous string `toml:"sqlite_synchronous"`
}

// SQLite synchronous settings accepted in Database.SQLiteSynchronous.
const (
	SyncNormal = "normal"
	SyncFull   = "full"
)

// Bus kinds accepted in Bus.Kind.
const (
	BusInproc = "inproc"
	BusNATS   = "nats"
	BusRedis  = "redis"
)

// Bus selects how events travel between nodes.
type Bus struct {
	Kind string `toml:"kind"` // BusInproc, BusNATS or BusRedis
	URL  string `toml:"url"`  // server URL; required for nats and redis, empty for inproc
}

// Shared selects where the nodes of one instance keep what they must
// agree on outside the database: who is online, recent send nonces, rate
// limits and slowmode windows.
type Shared struct {
	// URL is a Redis URL (redis://, rediss:// or unix://). When empty,
	// the bus's URL is used if the bus is Redis; otherwise each node
	// keeps that state in its own memory, which is right for one node.
	URL string `toml:"url" secret:"true"`
	// Prefix starts every key Ermine writes there, so several instances
	// (or test runs) can share one Redis database.
	Prefix string `toml:"prefix"`
	// PresenceLease is how long a node's claim that a user is connected
	// lasts unless renewed: the users of a node that dies go offline
	// for everyone within about this long.
	PresenceLease time.Duration `toml:"presence_lease"`
}

// SharedRedisURL is the Redis that holds the shared state, or "" when each
// node keeps its own.
func (c Config) SharedRedisURL() string {
	if c.Shared.URL != "" {
		return c.Shared.URL
	}
	if c.Bus.Kind == BusRedis {
		return c.Bus.URL
	}
	return ""
}

// File backends accepted in Files.Backend.
const (
	FilesDisk = "disk"
	FilesS3   = "s3"
)

// Files configures where uploads are kept and how large they may be.
type Files struct {
	Backend       string        `toml:"backend"`         // FilesDisk or FilesS3
	UnusedFileTTL time.Duration `toml:"unused_file_ttl"` // uploads never attached are deleted after this
	S3            S3            `toml:"s3"`
	Limits        FileLimits    `toml:"limits"`
}

// S3 is an S3-compatible object store, used when Files.Backend is FilesS3.
type S3 struct {
	Endpoint  string `toml:"endpoint"` // host[:port], without a scheme
	Bucket    string `toml:"bucket"`
	AccessKey string `toml:"access_key"`
	SecretKey string `toml:"secret_key" secret:"true"`
	Region    string `toml:"region"`
	UseSSL    bool   `toml:"use_ssl"` // https instead of http to Endpoint
}

// FileLimits is the largest upload accepted per file tag, in bytes.
type FileLimits struct {
	Attachments int64 `toml:"attachments"`
	Avatars     int64 `toml:"avatars"`
	Backgrounds int64 `toml:"backgrounds"`
	Icons       int64 `toml:"icons"`
	Banners     int64 `toml:"banners"`
	Emojis      int64 `toml:"emojis"`
}

// ForTag returns the size limit for a file tag such as "attachments", and
// false for a tag Ermine does not know.
func (l FileLimits) ForTag(tag string) (int64, bool) {
	switch tag {
	case "attachments":
		return l.Attachments, true
	case "avatars":
		return l.Avatars, true
	case "backgrounds":
		return l.Backgrounds, true
	case "icons":
		return l.Icons, true
	case "banners":
		return l.Banners, true
	case "emojis":
		return l.Emojis, true
	}
	return 0, false
}

// SMTP connection security modes accepted in Email.TLS.
const (
	TLSStartTLS = "starttls"
	TLSImplicit = "tls"
	TLSNone     = "none"
)

// Email is the SMTP server used for verification and password reset mail.
type Email struct {
	Host     string `toml:"host"`
	Port     int    `toml:"port"`
	TLS      string `toml:"tls"` // TLSStartTLS, TLSImplicit or TLSNone
	Username string `toml:"username"`
	Password string `toml:"password" secret:"true"`
	From     string `toml:"from"` // sender address, e.g. "Ermine <noreply@example.com>"
	// RetryDelay is the wait before retrying a verification mail that
	// could not be sent at account creation; it doubles on each of the
	// following attempts (five in all). Zero means 30 s.
	RetryDelay time.Duration `toml:"retry_delay"`
}

// Enabled reports whether mail is sent at all; it is iff Host is set.
// Without mail, new accounts are verified at once.
func (e Email) Enabled() bool { return e.Host != "" }

// Captcha configures hCaptcha on registration, login and password reset.
type Captcha struct {
	HCaptchaKey    string `toml:"hcaptcha_key"` // site key, given to clients
	HCaptchaSecret string `toml:"hcaptcha_secret" secret:"true"`
	// VerifyURL is where answers are checked: hCaptcha's siteverify, or a
	// compatible service.
	VerifyURL string `toml:"verify_url"`
}

// Enabled reports whether captcha answers are checked.
func (c Captcha) Enabled() bool { return c.HCaptchaSecret != "" }

// Registration controls who may create an account.
type Registration struct {
	InviteOnly bool `toml:"invite_only"` // require an invite code to register
}

// Webhooks controls channel webhooks, through which other services post
// messages with a token.
type Webhooks struct {
	Enabled bool `toml:"enabled"` // false: every webhook route answers FeatureDisabled
}

// Passwords sets the cost of password hashes (argon2id). Hashes keep the
// cost they were made with, so changing it never locks anyone out; each
// is redone with the new cost at its next login.
type Passwords struct {
	MemoryKiB   int `toml:"memory_kib"`  // memory per hash, in KiB
	Passes      int `toml:"passes"`      // passes over that memory
	Concurrency int `toml:"concurrency"` // hashes computed at once; 0 for the number of CPUs
}

// Push holds the VAPID key pair for Web Push notifications, as unpadded
// base64url: the public key is an uncompressed P-256 point (65 bytes), the
// private key its 32-byte scalar.
type Push struct {
	VAPIDPublicKey  string `toml:"vapid_public_key"`
	VAPIDPrivateKey string `toml:"vapid_private_key" secret:"true"`
	// Subject is the contact push services see in the VAPID token: an
	// https URL or mailto: address. Empty uses [public] app_url.
	Subject string `toml:"subject"`
	// AllowPrivate lets push endpoints be plain http on loopback and
	// private addresses (a private push service, tests). Off, only https
	// endpoints on public addresses are used.
	AllowPrivate bool `toml:"allow_private"`
	// FCM and APN deliver to the official mobile apps' subscriptions
	// (endpoint "fcm" and "apn") with the operator's own credentials.
	FCM PushFCM `toml:"fcm"`
	APN PushAPN `toml:"apn"`
}

// Enabled reports whether Web Push is configured.
func (p Push) Enabled() bool { return p.VAPIDPrivateKey != "" }

// PushFCM is a Firebase service account for the FCM HTTP v1 API.
type PushFCM struct {
	// ServiceAccount is the path of the service account's JSON key file
	// (client_email, private_key, token_uri, project_id).
	ServiceAccount string `toml:"service_account"`
	// URL is the FCM API's base; empty is https://fcm.googleapis.com.
	URL string `toml:"url"`
}

// Enabled reports whether FCM delivery is configured.
func (f PushFCM) Enabled() bool { return f.ServiceAccount != "" }

// PushAPN is a token-based (.p8) key for Apple's push service.
type PushAPN struct {
	// KeyFile is the path of the .p8 key (PKCS#8 PEM, P-256).
	KeyFile string `toml:"key_file"`
	KeyID   string `toml:"key_id"`
	TeamID  string `toml:"team_id"`
	// Topic is the app's bundle id (apns-topic).
	Topic string `toml:"topic"`
	// Sandbox sends to Apple's development service.
	Sandbox bool `toml:"sandbox"`
	// URL overrides the service's base (tests, a relay); empty picks
	// Apple's production or sandbox service.
	URL string `toml:"url"`
}

// Enabled reports whether APNs delivery is configured.
func (a PushAPN) Enabled() bool { return a.KeyFile != "" }

// Embeds configures link previews and the image proxy. Every request
// made for them goes through one outbound client that refuses private,
// loopback and other non-public addresses after DNS resolution.
type Embeds struct {
	// Enabled turns link previews on messages and the preview and proxy
	// routes on.
	Enabled bool `toml:"enabled"`
	// Links is how many links of one message are previewed.
	Links int `toml:"links"`
	// Workers is how many messages have their links fetched at once.
	Workers int `toml:"workers"`
	// UserAgent is sent with every outbound request.
	UserAgent string `toml:"user_agent"`
	// HTMLBytes caps a page read for its metadata, MediaBytes an image or
	// video read for its size or proxied.
	HTMLBytes  int64 `toml:"html_bytes"`
	MediaBytes int64 `toml:"media_bytes"`
	// ProxyCacheEntries bounds the proxied images kept for a minute.
	ProxyCacheEntries int `toml:"proxy_cache_entries"`
	// YouTubeOEmbed is the oEmbed endpoint asked about YouTube links.
	YouTubeOEmbed string `toml:"youtube_oembed_url"`
	// BlockedDomains are never fetched, nor their subdomains.
	BlockedDomains []string `toml:"blocked_domains"`
	// AllowedPrivateHosts may resolve to private or loopback addresses.
	// Empty in production; tests name their loopback server here.
	AllowedPrivateHosts []string `toml:"allowed_private_hosts"`
}

// Voice configures voice channels, served by LiveKit.
type Voice struct {
	Enabled bool        `toml:"enabled"`
	Nodes   []VoiceNode `toml:"nodes"`
}

// VoiceNode is one LiveKit server. Clients are sent to the node nearest to them.
type VoiceNode struct {
	Name      string  `toml:"name"`       // unique, shown to clients
	Lat       float64 `toml:"lat"`        // latitude in degrees
	Lon       float64 `toml:"lon"`        // longitude in degrees
	URL       string  `toml:"url"`        // http(s) URL of the LiveKit server API, used by Ermine
	PublicURL string  `toml:"public_url"` // ws(s) URL clients connect to
	APIKey    string  `toml:"api_key"`
	APISecret string  `toml:"api_secret" secret:"true"`
}

// Gateway tunes the events WebSocket.
type Gateway struct {
	Keepalive time.Duration `toml:"keepalive"`  // close a connection silent for this long
	SendQueue int           `toml:"send_queue"` // frames queued per connection before it is dropped
	// SendBuffer caps each events socket's kernel send buffer in bytes
	// (SO_SNDBUF), so a client that stops reading is dropped by
	// send_queue before it holds megabytes of kernel memory.
	SendBuffer int   `toml:"send_buffer"`
	MaxPacket  int64 `toml:"max_packet"` // largest frame accepted from a client, in bytes
	// AuthTimeout is how long a connection may stay open without
	// authenticating before it is closed.
	AuthTimeout time.Duration `toml:"auth_timeout"`
	// UnauthenticatedPerIP caps the connections one client address may
	// hold open before they authenticate.
	UnauthenticatedPerIP int `toml:"unauthenticated_per_ip"`
}

// Metrics controls where the Prometheus metrics are served. They are
// never on the public API port unless a token is set.
type Metrics struct {
	// Listen is a separate host:port serving GET /metrics,
	// e.g. "127.0.0.1:9102"; empty for none.
	Listen string `toml:"listen"`
	// Token, when set, also serves GET /metrics on the main port to
	// requests with "Authorization: Bearer <token>".
	Token string `toml:"token" secret:"true"`
	// Profiling also serves Go's profiler (/debug/pprof/) on Listen,
	// never on the main port.
	Profiling bool `toml:"profiling"`
}

// Limits are the counts and sizes users are held to.
type Limits struct {
	// NewUserHours is how long after creation an account gets NewUser
	// instead of Default.
	NewUserHours int        `toml:"new_user_hours"`
	Default      UserLimits `toml:"default"`
	NewUser      UserLimits `toml:"new_user"`

	GroupSize        int   `toml:"group_size"`        // members of a group, owner included
	MessageEmbeds    int   `toml:"message_embeds"`    // embeds sent with one message
	MessageReplies   int   `toml:"message_replies"`   // replies in one message
	MessageReactions int   `toml:"message_reactions"` // distinct reactions on one message
	ServerEmoji      int   `toml:"server_emoji"`      // custom emoji per server
	ServerRoles      int   `toml:"server_roles"`      // roles per server
	ServerChannels   int   `toml:"server_channels"`   // channels per server
	BodyBytes        int64 `toml:"body_bytes"`        // largest JSON request body
	// EphemeralDelay is how many seconds an ephemeral bot message lives
	// before it is deleted (the reference's
	// features.advanced.ephemeral_delay, pull request #929).
	EphemeralDelay int `toml:"ephemeral_delay"`
	// RateLimits applies the per-client request rate limits. Off only
	// behind a proxy that limits requests itself, or in tests.
	RateLimits bool `toml:"rate_limits"`
	// RestrictServerCreation lets only privileged users create servers.
	RestrictServerCreation bool `toml:"restrict_server_creation"`
}

// Legal links the instance's legal documents; clients show them (GET /
// features.legal_links). Empty values are sent as null.
type Legal struct {
	TermsOfService string `toml:"terms_of_service"` // http(s) URL of the terms of service
	PrivacyPolicy  string `toml:"privacy_policy"`   // http(s) URL of the privacy policy
	Guidelines     string `toml:"guidelines"`       // http(s) URL of the community guidelines
}

// UserLimits are the limits that depend on the age of an account.
type UserLimits struct {
	OutgoingFriendRequests int `toml:"outgoing_friend_requests"`
	Bots                   int `toml:"bots"`
	MessageLength          int `toml:"message_length"` // bytes of content plus embed descriptions
	MessageAttachments     int `toml:"message_attachments"`
	Servers                int `toml:"servers"` // servers created or joined
	// VoiceQuality is the audio bitrate voice clients are told to use,
	// in bits per second, and Video whether they may send video.
	VoiceQuality int  `toml:"voice_quality"`
	Video        bool `toml:"video"`
}

// ForAge returns the limits for an account of the given age.
func (l Limits) ForAge(age time.Duration) UserLimits {
	if age < time.Duration(l.NewUserHours)*time.Hour {
		return l.NewUser
	}
	return l.Default
}

// Log configures the server log.
type Log struct {
	Level  string `toml:"level"`  // debug, info, warn or error
	Format string `toml:"format"` // text or json
}

// Default returns the settings of a single node with nothing installed:
// SQLite under ./data, the in-process bus and uploads on disk.
func Default() Config {
	return Config{
		Listen: "127.0.0.1:14702",
		Data:   "./data",
		Public: Public{TrustedProxies: []string{}},
		Bus:    Bus{Kind: BusInproc},
		Shared: Shared{Prefix: "ermine:", PresenceLease: 30 * time.Second},
		Files: Files{
			Backend:       FilesDisk,
			UnusedFileTTL: time.Hour,
			S3:            S3{UseSSL: true},
			Limits: FileLimits{
				Attachments: 20_000_000,
				Avatars:     4_000_000,
				Backgrounds: 6_000_000,
				Icons:       2_500_000,
				Banners:     6_000_000,
				Emojis:      500_000,
			},
		},
		Email:     Email{Port: 587, TLS: TLSStartTLS, RetryDelay: 30 * time.Second},
		Webhooks:  Webhooks{Enabled: true},
		Passwords: Passwords{MemoryKiB: 19 * 1024, Passes: 2},
		Captcha:   Captcha{VerifyURL: "https://api.hcaptcha.com/siteverify"},
		Database:  Database{SQLiteSynchronous: SyncNormal},
		Embeds: Embeds{
			Enabled:           true,
			Links:             5,
			Workers:           4,
			UserAgent:         "Mozilla/5.0 (compatible; Ermine link previews)",
			HTMLBytes:         5 << 20,
			MediaBytes:        20 << 20,
			ProxyCacheEntries: 256,
			YouTubeOEmbed:     "https://www.youtube.com/oembed",
			// Empty, not nil, so a file that spells out [] reads the same.
			BlockedDomains:      []string{},
			AllowedPrivateHosts: []string{},
		},
		Gateway: Gateway{
			Keepalive:            60 * time.Second,
			SendQueue:            256,
			SendBuffer:           128 << 10,
			MaxPacket:            16384,
			AuthTimeout:          10 * time.Second,
			UnauthenticatedPerIP: 50,
		},
		Limits: Limits{
			NewUserHours: 72,
			Default: UserLimits{
				OutgoingFriendRequests: 10,
				Bots:                   5,
				MessageLength:          2000,
				MessageAttachments:     5,
				Servers:                100,
				VoiceQuality:           16000,
				Video:                  true,
			},
			NewUser: UserLimits{
				OutgoingFriendRequests: 5,
				Bots:                   2,
				MessageLength:          2000,
				MessageAttachments:     5,
				Servers:                50,
				VoiceQuality:           16000,
				Video:                  true,
			},
			GroupSize:        100,
			MessageEmbeds:    5,
			MessageReplies:   5,
			MessageReactions: 20,
			EphemeralDelay:   1800,
			ServerEmoji:      100,
			ServerRoles:      200,
			ServerChannels:   200,
			BodyBytes:        1 << 20,
			RateLimits:       true,
		},
		Log: Log{Level: "info", Format: "text"},
	}
}

// SQLitePath is the database file used when Database.URL is empty.
func (c Config) SQLitePath() string { return filepath.Join(c.Data, "ermine.db") }

// PublicURLs returns c.Public with every empty URL derived from addr, the
// address the server actually listens on (which differs from c.Listen when
// its port is 0): api http://<addr>, events ws://<addr>/events, files
// http://<addr>/autumn, embeds http://<addr>/january, and app <api>/app
// (the embedded web client).
func (c Config) PublicURLs(addr string) Public {
	p := c.Public
	if p.APIURL == "" {
		p.APIURL = "http://" + addr
	}
	if p.EventsURL == "" {
		p.EventsURL = "ws://" + addr + "/events"
	}
	if p.FilesURL == "" {
		p.FilesURL = "http://" + addr + "/autumn"
	}
	if p.AppURL == "" {
		p.AppURL = strings.TrimRight(p.APIURL, "/") + "/app"
	}
	if p.EmbedsURL == "" {
		p.EmbedsURL = "http://" + addr + "/january"
	}
	return p
}
