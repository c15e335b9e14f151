package push_test

import (
	"testing"

	"ermine/internal/push"
)

// FuzzValidSubscription feeds the checks of client-given subscriptions
// arbitrary input: they must not panic, and what they accept must be
// usable (an http(s) URL with a host; keys of the right sizes).
func FuzzValidSubscription(f *testing.F) {
	k, err := push.GenerateKeys()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("https://push.example/abc", k.Public, "AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("http://127.0.0.1:1/x", "BAAA", "==")
	f.Add("https://u@h/", "", "")
	f.Add("https://[::1]:99999/", k.Public+"=", "AAAAAAAAAAAAAAAAAAAAAA==")
	f.Fuzz(func(t *testing.T, endpoint, p256dh, auth string) {
		if push.ValidEndpoint(endpoint, false) && !push.ValidEndpoint(endpoint, true) {
			t.Errorf("%q: valid without private addresses but not with", endpoint)
		}
		_ = push.ValidKeys(p256dh, auth)
	})
}
