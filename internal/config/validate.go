package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Validate checks every setting and returns all problems joined, one per
// line, each naming its key: "config: database.url: must start with
// postgres:// or be empty".
func (c Config) Validate() error {
	v := &validator{}

	if err := checkHostPort(c.Listen); err != nil {
		v.add("listen", err.Error())
	}
	if c.Data == "" {
		v.add("data", "must not be empty")
	}

	v.url("public.api_url", c.Public.APIURL, "http", "https")
	v.url("public.events_url", c.Public.EventsURL, "ws", "wss")
	v.url("public.files_url", c.Public.FilesURL, "http", "https")
	v.url("public.app_url", c.Public.AppURL, "http", "https")
	v.url("legal.terms_of_service", c.Legal.TermsOfService, "http", "https")
	v.url("legal.privacy_policy", c.Legal.PrivacyPolicy, "http", "https")
	v.url("legal.guidelines", c.Legal.Guidelines, "http", "https")
	v.url("public.embeds_url", c.Public.EmbedsURL, "http", "https")
	for _, p := range c.Public.TrustedProxies {
		if _, err := parseTrusted(p); err != nil {
			v.add("public.trusted_proxies", fmt.Sprintf("%q is not an IP address or CIDR range", p))
		}
	}

	if u := c.Database.URL; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		v.add("database.url", "must start with postgres:// or postgresql://, or be empty")
	} else if u != "" {
		if _, err := url.Parse(u); err != nil {
			v.add("database.url", "is not a valid URL")
		}
	}

	switch c.Bus.Kind {
	case BusInproc:
		if c.Bus.URL != "" {
			v.add("bus.url", "must be empty when bus.kind is inproc")
		}
	case BusNATS:
		// NATS takes a comma-separated list of servers.
		if c.Bus.URL == "" {
			v.add("bus.url", "must be set when bus.kind is nats")
		}
		for s := range strings.SplitSeq(c.Bus.URL, ",") {
			if c.Bus.URL != "" && !hasScheme(strings.TrimSpace(s), "nats", "tls", "ws", "wss") {
				v.add("bus.url", "must be nats://, tls://, ws:// or wss:// URLs separated by commas")
				break
			}
		}
	case BusRedis:
		if !hasScheme(c.Bus.URL, "redis", "rediss", "unix") {
			v.add("bus.url", "must be a redis://, rediss:// or unix:// URL when bus.kind is redis")
		}
	default:
		v.add("bus.kind", "must be inproc, nats or redis")
	}

	if u := c.Shared.URL; u != "" && !hasScheme(u, "redis", "rediss", "unix") {
		v.add("shared.url", "must be a redis://, rediss:// or unix:// URL, or empty")
	}
	if c.Metrics.Profiling && c.Metrics.Listen == "" {
		v.add("metrics.profiling", "needs metrics.listen: the profiler is never served on the main port")
	}
	if c.Shared.Prefix == "" || len(c.Shared.Prefix) > 64 {
		v.add("shared.prefix", "must be 1 to 64 characters")
	}
	if l := c.Shared.PresenceLease; l < time.Second || l > 10*time.Minute {
		v.add("shared.presence_lease", "must be between 1s and 10m")
	}

	if e := c.Embeds; e.Enabled {
		if e.Links < 1 || e.Links > 10 {
			v.add("embeds.links", "must be between 1 and 10")
		}
		if e.Workers < 1 {
			v.add("embeds.workers", "must be at least 1")
		}
		if e.HTMLBytes < 1024 {
			v.add("embeds.html_bytes", "must be at least 1024")
		}
		if e.MediaBytes < 1024 {
			v.add("embeds.media_bytes", "must be at least 1024")
		}
		if e.ProxyCacheEntries < 1 {
			v.add("embeds.proxy_cache_entries", "must be at least 1")
		}
		if e.UserAgent == "" {
			v.add("embeds.user_agent", "must not be empty")
		}
		v.url("embeds.youtube_oembed_url", e.YouTubeOEmbed, "http", "https")
	}

	switch c.Files.Backend {
	case FilesDisk:
	case FilesS3:
		s := c.Files.S3
		if s.Endpoint == "" {
			v.add("files.s3.endpoint", "must be set when files.backend is s3")
		}
		if s.Bucket == "" {
			v.add("files.s3.bucket", "must be set when files.backend is s3")
		}
	default:
		v.add("files.backend", "must be disk or s3")
	}
	if e := c.Files.S3.Endpoint; e != "" {
		if strings.Contains(e, "://") || strings.Contains(e, "/") {
			v.add("files.s3.endpoint", "must be host or host:port, without a scheme or path (see files.s3.use_ssl)")
		}
	}
	if c.Files.S3.AccessKey == "" && c.Files.S3.SecretKey != "" || c.Files.S3.AccessKey != "" && c.Files.S3.SecretKey == "" {
		v.add("files.s3.secret_key", "must be set together with files.s3.access_key")
	}
	if c.Files.UnusedFileTTL <= 0 {
		v.add("files.unused_file_ttl", "must be positive")
	}
	for _, l := range []struct {
		key string
		n   int64
	}{
		{"attachments", c.Files.Limits.Attachments},
		{"avatars", c.Files.Limits.Avatars},
		{"backgrounds", c.Files.Limits.Backgrounds},
		{"icons", c.Files.Limits.Icons},
		{"banners", c.Files.Limits.Banners},
		{"emojis", c.Files.Limits.Emojis},
	} {
		v.positive("files.limits."+l.key, l.n)
	}

	if c.Email.RetryDelay < 0 || c.Email.RetryDelay > time.Hour {
		v.add("email.retry_delay", "must be between 0 (30s) and 1h")
	}
	if c.Email.Port < 1 || c.Email.Port > 65535 {
		v.add("email.port", "must be between 1 and 65535")
	}
	switch c.Email.TLS {
	case TLSStartTLS, TLSImplicit, TLSNone:
	default:
		v.add("email.tls", "must be starttls, tls or none")
	}
	if c.Email.Enabled() {
		if _, err := mail.ParseAddress(c.Email.From); err != nil {
			v.add("email.from", "must be a mail address when email.host is set")
		}
	}
	if c.Email.Password != "" && c.Email.Username == "" {
		v.add("email.username", "must be set when email.password is set")
	}

	if (c.Captcha.HCaptchaKey == "") != (c.Captcha.HCaptchaSecret == "") {
		v.add("captcha.hcaptcha_secret", "must be set together with captcha.hcaptcha_key")
	}
	if c.Captcha.Enabled() && c.Captcha.VerifyURL == "" {
		v.add("captcha.verify_url", "must be set when captcha.hcaptcha_secret is set")
	}
	v.url("captcha.verify_url", c.Captcha.VerifyURL, "http", "https")

	if c.Passwords.MemoryKiB < 8 || c.Passwords.MemoryKiB > 4<<20 {
		v.add("passwords.memory_kib", "must be between 8 and 4194304 (4 GiB)")
	}
	if c.Passwords.Passes < 1 || c.Passwords.Passes > 100 {
		v.add("passwords.passes", "must be between 1 and 100")
	}
	if c.Passwords.Concurrency < 0 {
		v.add("passwords.concurrency", "must not be negative")
	}

	if (c.Push.VAPIDPublicKey == "") != (c.Push.VAPIDPrivateKey == "") {
		v.add("push.vapid_private_key", "must be set together with push.vapid_public_key")
	}
	if k := c.Push.VAPIDPublicKey; k != "" {
		if b, err := decodeKey(k); err != nil || len(b) != 65 || b[0] != 4 {
			v.add("push.vapid_public_key", "must be an uncompressed P-256 public key in base64url (65 bytes)")
		}
	}
	if k := c.Push.VAPIDPrivateKey; k != "" {
		if b, err := decodeKey(k); err != nil || len(b) != 32 {
			v.add("push.vapid_private_key", "must be a P-256 private key in base64url (32 bytes)")
		}
	}

	if c.Voice.Enabled && len(c.Voice.Nodes) == 0 {
		v.add("voice.nodes", "must list at least one node when voice.enabled is true")
	}
	names := map[string]bool{}
	for i, n := range c.Voice.Nodes {
		key := func(k string) string { return fmt.Sprintf("voice.nodes[%d].%s", i, k) }
		switch {
		case n.Name == "":
			v.add(key("name"), "must not be empty")
		case names[n.Name]:
			v.add(key("name"), fmt.Sprintf("%q is used by another node", n.Name))
		}
		names[n.Name] = true
		if !(n.Lat >= -90 && n.Lat <= 90) {
			v.add(key("lat"), "must be between -90 and 90")
		}
		if !(n.Lon >= -180 && n.Lon <= 180) {
			v.add(key("lon"), "must be between -180 and 180")
		}
		if n.URL == "" {
			v.add(key("url"), "must be set")
		} else {
			v.url(key("url"), n.URL, "http", "https")
		}
		if n.PublicURL == "" {
			v.add(key("public_url"), "must be set")
		} else {
			v.url(key("public_url"), n.PublicURL, "ws", "wss")
		}
		if n.APIKey == "" {
			v.add(key("api_key"), "must be set")
		}
		if n.APISecret == "" {
			v.add(key("api_secret"), "must be set")
		}
	}

	if c.Gateway.Keepalive <= 0 {
		v.add("gateway.keepalive", "must be positive")
	}
	v.positive("gateway.send_queue", int64(c.Gateway.SendQueue))
	if b := c.Gateway.SendBuffer; b < 4096 || b > 64<<20 {
		v.add("gateway.send_buffer", "must be from 4096 to 67108864 bytes")
	}
	if c.Gateway.AuthTimeout <= 0 {
		v.add("gateway.auth_timeout", "must be positive")
	}
	v.positive("gateway.unauthenticated_per_ip", int64(c.Gateway.UnauthenticatedPerIP))
	switch c.Database.SQLiteSynchronous {
	case SyncNormal, SyncFull:
	default:
		v.add("database.sqlite_synchronous", `must be "normal" or "full"`)
	}
	if c.Metrics.Listen != "" {
		if err := checkHostPort(c.Metrics.Listen); err != nil {
			v.add("metrics.listen", err.Error())
		}
	}
	v.positive("gateway.max_packet", c.Gateway.MaxPacket)

	if c.Limits.NewUserHours < 0 {
		v.add("limits.new_user_hours", "must not be negative")
	}
	for _, set := range []struct {
		name string
		l    UserLimits
	}{{"default", c.Limits.Default}, {"new_user", c.Limits.NewUser}} {
		p := "limits." + set.name + "."
		v.positive(p+"outgoing_friend_requests", int64(set.l.OutgoingFriendRequests))
		v.positive(p+"bots", int64(set.l.Bots))
		v.positive(p+"message_length", int64(set.l.MessageLength))
		v.positive(p+"message_attachments", int64(set.l.MessageAttachments))
		v.positive(p+"servers", int64(set.l.Servers))
	}
	v.positive("limits.group_size", int64(c.Limits.GroupSize))
	v.positive("limits.message_embeds", int64(c.Limits.MessageEmbeds))
	v.positive("limits.message_replies", int64(c.Limits.MessageReplies))
	v.positive("limits.message_reactions", int64(c.Limits.MessageReactions))
	v.positive("limits.ephemeral_delay", int64(c.Limits.EphemeralDelay))
	v.positive("limits.server_emoji", int64(c.Limits.ServerEmoji))
	v.positive("limits.server_roles", int64(c.Limits.ServerRoles))
	v.positive("limits.server_channels", int64(c.Limits.ServerChannels))
	v.positive("limits.body_bytes", c.Limits.BodyBytes)

	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		v.add("log.level", "must be debug, info, warn or error")
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		v.add("log.format", "must be text or json")
	}

	return errors.Join(v.errs...)
}

// validator collects problems in the order they are found.
type validator struct{ errs []error }

func (v *validator) add(key, msg string) {
	v.errs = append(v.errs, fmt.Errorf("config: %s: %s", key, msg))
}

func (v *validator) positive(key string, n int64) {
	if n <= 0 {
		v.add(key, "must be positive")
	}
}

// url checks that a non-empty s is an absolute URL with one of schemes
// and without a query or fragment, since clients append their own.
func (v *validator) url(key, s string, schemes ...string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	want := strings.Join(schemes, ":// or ") + "://"
	switch {
	case err != nil || u.Host == "" || !hasScheme(s, schemes...):
		v.add(key, "must be an absolute "+want+" URL")
	case u.RawQuery != "" || u.ForceQuery:
		v.add(key, "must not have a query string")
	case u.Fragment != "":
		v.add(key, "must not have a fragment")
	}
}

// hasScheme reports whether s is a URL with a host and one of schemes.
func hasScheme(s string, schemes ...string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	for _, sc := range schemes {
		if u.Scheme == sc && (u.Host != "" || sc == "unix") {
			return true
		}
	}
	return false
}

// checkHostPort accepts host:port with a numeric port, host possibly empty.
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("must be host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return errors.New("must have a port between 0 and 65535")
	}
	return nil
}

// decodeKey decodes base64url with or without padding.
func decodeKey(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
