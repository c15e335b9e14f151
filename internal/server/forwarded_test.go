package server

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestForwardedClient(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}
	for _, tt := range []struct {
		remote string
		header []string
		want   string // "" for the request's own address
	}{
		{"127.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.7"}, "203.0.113.7"}, // the left one is the client's word
		{"127.0.0.1:5000", []string{"203.0.113.7, 10.1.2.3"}, "203.0.113.7"},     // through a second proxy
		{"127.0.0.1:5000", []string{"198.51.100.1", "203.0.113.7"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"2001:db8::1"}, "2001:db8::1"},
		{"127.0.0.1:5000", []string{"junk, 203.0.113.7"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"203.0.113.7, junk"}, ""},
		{"127.0.0.1:5000", nil, ""},
		{"192.0.2.9:5000", []string{"203.0.113.7"}, ""}, // not a proxy: the header is the client's word
		{"[::ffff:127.0.0.1]:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"10.9.9.9:1", []string{"10.1.1.1"}, "10.1.1.1"}, // only proxies: the leftmost
	} {
		got, ok := forwardedClient(trusted, tt.remote, tt.header)
		if tt.want == "" {
			if ok {
				t.Errorf("%s %q: client %s, want the request's own address", tt.remote, tt.header, got)
			}
			continue
		}
		if !ok || got.String() != tt.want {
			t.Errorf("%s %q: client %s (%v), want %s", tt.remote, tt.header, got, ok, tt.want)
		}
	}

	var seen string
	h := behindProxies(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.RemoteAddr }))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "127.0.0.1:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if seen != "203.0.113.7:0" {
		t.Errorf("RemoteAddr behind the proxy = %q", seen)
	}
}
