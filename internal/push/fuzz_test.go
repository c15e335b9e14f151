package push_test

import (
	"crypto/ecdh"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"ermine/internal/egress"
	"ermine/internal/push"
)

// FuzzValidSubscription feeds the checks of client-given subscriptions
// arbitrary input: they must not panic, and what they accept must be
// usable (an http(s) URL with a host; keys of the right sizes), each
// checked here independently of the code under test.
func FuzzValidSubscription(f *testing.F) {
	k, err := push.GenerateKeys()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("https://push.example/abc", k.Public, "AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("http://127.0.0.1:1/x", "BAAA", "==")
	f.Add("https://u@h/", "", "")
	f.Add("https://[::1]:99999/", k.Public+"=", "AAAAAAAAAAAAAAAAAAAAAA==")
	f.Add("https://push.example/abc", k.Public, "AAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add("https:///nohost", "BAAA", "AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("https://:443/x", k.Public, "AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("https://100.64.0.1/x", k.Public, "AAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, endpoint, p256dh, auth string) {
		strict, loose := push.ValidEndpoint(endpoint, false), push.ValidEndpoint(endpoint, true)
		if strict && !loose {
			t.Errorf("%q: valid without private addresses but not with", endpoint)
		}
		if loose {
			u, err := url.Parse(endpoint)
			switch {
			case err != nil:
				t.Errorf("%q accepted but does not parse: %v", endpoint, err)
			case u.Scheme != "https" && u.Scheme != "http", u.Hostname() == "", u.User != nil, len(endpoint) > 2048:
				t.Errorf("%q accepted: scheme %q, host %q, user %v", endpoint, u.Scheme, u.Hostname(), u.User)
			case strict && u.Scheme != "https":
				t.Errorf("%q accepted without private addresses but not https", endpoint)
			case strict && egress.CheckHost(u.Hostname()) != nil:
				t.Errorf("%q accepted without private addresses: %v", endpoint, egress.CheckHost(u.Hostname()))
			}
		}
		if push.ValidKeys(p256dh, auth) {
			key, kerr := base64.RawURLEncoding.DecodeString(strings.TrimRight(p256dh, "="))
			secret, serr := base64.RawURLEncoding.DecodeString(strings.TrimRight(auth, "="))
			if kerr != nil || len(key) != 65 || key[0] != 4 {
				t.Errorf("p256dh %q accepted: %d bytes, %v", p256dh, len(key), kerr)
			} else if _, err := ecdh.P256().NewPublicKey(key); err != nil {
				t.Errorf("p256dh %q accepted but not a P-256 point: %v", p256dh, err)
			}
			if serr != nil || len(secret) != 16 {
				t.Errorf("auth %q accepted: %d bytes, %v", auth, len(secret), serr)
			}
		}
	})
}
