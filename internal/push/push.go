// Package push delivers Web Push notifications: payloads encrypted for
// the subscription's keys (RFC 8291, aes128gcm) and signed for the push
// service with the instance's VAPID key (RFC 8292), through
// github.com/SherClockHolmes/webpush-go. Deliveries go through a bounded
// queue worked by a few goroutines and are retried with backoff, so the
// request that caused one never waits for a push service. A subscription
// the push service says is gone (404 or 410) is reported to the caller
// to be forgotten.
package push

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"ermine/internal/egress"
)

// Subscription is where and for whom a notification is encrypted: the
// push service's endpoint and the browser's P-256 key and auth secret
// (base64url, as the browser's PushSubscription gives them).
type Subscription struct {
	Endpoint string
	P256DH   string
	Auth     string
}

// ErrGone is returned by Send when the push service no longer knows the
// subscription (HTTP 404 or 410): it must not be used again.
var ErrGone = errors.New("push: subscription expired")

// ErrRejected is returned by Send when the push service refused the
// notification for good (another 4xx): retrying would not help.
var ErrRejected = errors.New("push: rejected")

// Sender delivers one notification.
type Sender interface {
	// Send encrypts payload for sub and posts it to sub's endpoint. It
	// returns nil once the push service accepted it, ErrGone or
	// ErrRejected (wrapped) for answers that must not be retried, and
	// any other error for failures worth retrying.
	Send(ctx context.Context, sub Subscription, payload []byte) error
}

// Keys is a VAPID key pair, base64url without padding: the public key
// as an uncompressed P-256 point (65 bytes), the private key as its
// scalar (32 bytes).
type Keys struct {
	Public  string
	Private string
}

// GenerateKeys makes a new VAPID key pair.
func GenerateKeys() (Keys, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return Keys{}, fmt.Errorf("push: generate keys: %w", err)
	}
	enc := base64.RawURLEncoding
	return Keys{Public: enc.EncodeToString(k.PublicKey().Bytes()), Private: enc.EncodeToString(k.Bytes())}, nil
}

// WebPush sends notifications over HTTP to the subscriptions' push
// services.
type WebPush struct {
	keys    Keys
	subject string
	client  *http.Client
	ttl     int
}

// Options configure a WebPush sender.
type Options struct {
	Keys Keys
	// Subject is the contact put in the VAPID token: an https URL or an
	// email address.
	Subject string
	// AllowPrivate lets endpoints be plain http and reach loopback and
	// private addresses. Off, endpoints must be https on public
	// addresses, so subscriptions cannot make the server probe its own
	// network.
	AllowPrivate bool
	// Transport overrides the HTTP transport (tests trust their own TLS
	// certificate with it); the address checks still apply.
	Transport *http.Transport
	// Timeout bounds one delivery; 15 s when zero.
	Timeout time.Duration
}

// New returns a sender signing with o.Keys.
func New(o Options) *WebPush {
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	tr := o.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	} else {
		tr = tr.Clone()
	}
	tr.Proxy = nil
	if !o.AllowPrivate {
		// The one outbound rule (internal/egress), as link previews follow.
		d := &net.Dialer{Timeout: 10 * time.Second, Control: egress.Control}
		tr.DialContext = d.DialContext
	}
	client := &http.Client{Transport: tr, Timeout: o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// The library prefixes "mailto:" to anything not an https URL.
	return &WebPush{keys: o.Keys, subject: strings.TrimPrefix(o.Subject, "mailto:"), client: client, ttl: 24 * 60 * 60}
}

// ValidEndpoint reports whether endpoint may be used as a push endpoint:
// an absolute https URL whose host the outbound rule allows
// (egress.CheckHost: no private or loopback literal, no dotless name;
// names are checked again once resolved, when posting). With
// allowPrivate, plain http and any host are accepted (tests, a push
// service on the operator's own network).
func ValidEndpoint(endpoint string, allowPrivate bool) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" || u.User != nil || len(endpoint) > 2048 {
		return false
	}
	if allowPrivate {
		return u.Scheme == "https" || u.Scheme == "http"
	}
	return u.Scheme == "https" && egress.CheckHost(u.Hostname()) == nil
}

// Send implements Sender.
func (w *WebPush) Send(ctx context.Context, sub Subscription, payload []byte) error {
	if !ValidEndpoint(sub.Endpoint, true) {
		return fmt.Errorf("%w: bad endpoint", ErrRejected)
	}
	res, err := webpush.SendNotificationWithContext(ctx, payload,
		&webpush.Subscription{Endpoint: sub.Endpoint, Keys: webpush.Keys{P256dh: sub.P256DH, Auth: sub.Auth}},
		&webpush.Options{HTTPClient: w.client, Subscriber: w.subject, TTL: w.ttl, Urgency: webpush.UrgencyHigh,
			VAPIDPublicKey: w.keys.Public, VAPIDPrivateKey: w.keys.Private})
	if errors.Is(err, egress.ErrForbidden) {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if err != nil {
		var ne net.Error
		if ctx.Err() == nil && !errors.As(err, &ne) && !errors.Is(err, io.EOF) && !isDial(err) {
			// Bad keys or a payload that cannot be encrypted.
			return fmt.Errorf("%w: %w", ErrRejected, err)
		}
		return fmt.Errorf("push: send: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return nil
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusGone:
		return fmt.Errorf("%w: status %d", ErrGone, res.StatusCode)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
		return fmt.Errorf("push: status %d", res.StatusCode)
	default:
		return fmt.Errorf("%w: status %d", ErrRejected, res.StatusCode)
	}
}

// isDial reports whether err comes from reaching the endpoint.
func isDial(err error) bool {
	var oe *net.OpError
	var ue *url.Error
	return errors.As(err, &oe) || errors.As(err, &ue)
}

// ValidKeys reports whether p256dh is a P-256 public key and auth a
// 16-byte secret, both base64url (padded or not), as a browser's
// PushSubscription gives them.
func ValidKeys(p256dh, auth string) bool {
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
		if err != nil {
			return nil
		}
		return b
	}
	if _, err := ecdh.P256().NewPublicKey(dec(p256dh)); err != nil {
		return false
	}
	return len(dec(auth)) == 16
}
