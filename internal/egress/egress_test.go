package egress

import (
	"errors"
	"net/netip"
	"testing"
)

// TestRule is the one table of the outbound address rule: every address
// class and host form Ermine must never reach on a user's behalf, and
// some it may. Previews, the media proxy and push endpoints all use it.
func TestRule(t *testing.T) {
	refused := []struct{ class, host string }{
		{"loopback v4", "127.0.0.1"}, {"loopback v4 other", "127.8.9.10"}, {"loopback v6", "::1"},
		{"private 10/8", "10.1.2.3"}, {"private 172.16/12", "172.16.0.1"}, {"private 172.31", "172.31.255.254"},
		{"private 192.168/16", "192.168.1.1"}, {"link-local v4 (cloud metadata)", "169.254.169.254"},
		{"link-local v6", "fe80::1"}, {"unique-local", "fc00::1"}, {"unique-local fd", "fd12:3456::1"},
		{"multicast v4", "224.0.0.1"}, {"multicast v6", "ff02::1"}, {"unspecified v4", "0.0.0.0"},
		{"unspecified v6", "::"}, {"this network", "0.1.2.3"}, {"IPv4-mapped loopback", "::ffff:127.0.0.1"},
		{"IPv4-mapped public", "::ffff:8.8.8.8"}, {"carrier-grade NAT", "100.64.0.1"},
		{"broadcast", "255.255.255.255"}, {"reserved", "240.0.0.1"}, {"NAT64", "64:ff9b::7f00:1"},
		{"6to4", "2002:7f00:1::1"}, {"site-local", "fec0::1"}, {"IPv4-compatible", "::127.0.0.1"},
		{"benchmarking", "198.18.0.1"}, {"IETF assignments", "192.0.0.8"}, {"documentation v6", "2001:db8::1"},
		{"discard-only", "100::1"},
		// Names refused before any lookup.
		{"localhost", "localhost"}, {"dotless", "intranet"}, {"under localhost", "a.localhost"},
		{"empty", ""}, {"bracketed loopback", "[::1]"},
	}
	for _, tt := range refused {
		t.Run(tt.class, func(t *testing.T) {
			if err := CheckHost(tt.host); !errors.Is(err, ErrForbidden) {
				t.Errorf("CheckHost(%q) = %v, want ErrForbidden", tt.host, err)
			}
			if a, err := netip.ParseAddr(tt.host); err == nil {
				if PublicAddr(a) {
					t.Errorf("PublicAddr(%s) = true", a)
				}
				if err := Control("tcp", netip.AddrPortFrom(a, 443).String(), nil); !errors.Is(err, ErrForbidden) {
					t.Errorf("Control(%s) = %v", a, err)
				}
			}
		})
	}
	for _, h := range []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "172.32.0.1", "push.example.com", "fcm.googleapis.com"} {
		if err := CheckHost(h); err != nil {
			t.Errorf("CheckHost(%q) = %v, want allowed", h, err)
		}
		if a, err := netip.ParseAddr(h); err == nil {
			if err := Control("tcp", netip.AddrPortFrom(a, 443).String(), nil); err != nil {
				t.Errorf("Control(%s) = %v", a, err)
			}
		}
	}
}
