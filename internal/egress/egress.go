// Package egress is the one rule for where Ermine may connect on a
// user's behalf: link previews and the media proxy (internal/embeds) and
// Web Push endpoints (internal/push) all ask it. An address is allowed
// only when it is on the public internet; host names are checked after
// resolution, by the dialer (Control), on every connection and redirect.
// LiveKit nodes and other addresses the operator configures are not
// subject to it.
package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// ErrForbidden is returned for an address or host Ermine will not
// connect to on a user's behalf.
var ErrForbidden = errors.New("egress: address not allowed")

// forbiddenPrefixes are the networks a connection on a user's behalf
// must never reach, beyond what netip.Addr's own predicates (loopback,
// private, link-local, multicast, unspecified) already cover.
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: reaches IPv4 space
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2002::/16"),      // 6to4: embeds an IPv4 address
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated)
	netip.MustParsePrefix("fc00::/7"),       // unique-local (also IsPrivate)
	netip.MustParsePrefix("169.254.0.0/16"), // link-local (also IsLinkLocalUnicast)
	netip.MustParsePrefix("255.255.255.255/32"),
}

// PublicAddr reports whether a is an address on the public internet that
// Ermine may connect to on a user's behalf. IPv4-mapped IPv6 addresses
// are refused outright: they are a classic way around checks that only
// look at one family.
func PublicAddr(a netip.Addr) bool {
	if !a.IsValid() || a.Is4In6() || a.Zone() != "" {
		return false
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// CheckHost refuses what can be told of a URL's host (without its port)
// before any lookup: a literal address that is not public, and a name
// without a dot (localhost, intranet hosts) or under .localhost. A name
// that passes is checked again, once resolved, by Control.
func CheckHost(host string) error {
	h := strings.ToLower(strings.Trim(host, "[]"))
	if h == "" {
		return fmt.Errorf("%w: no host", ErrForbidden)
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		if !PublicAddr(ip) {
			return fmt.Errorf("%w: %s", ErrForbidden, ip)
		}
		return nil
	}
	h = strings.TrimSuffix(h, ".")
	if !strings.Contains(h, ".") || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Errorf("%w: host %q", ErrForbidden, h)
	}
	return nil
}

// Control is a net.Dialer's Control: it runs after resolution, on the
// exact address about to be connected to, and refuses any that is not
// public.
func Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		host, _, serr := net.SplitHostPort(address)
		if serr != nil {
			return fmt.Errorf("%w: %s", ErrForbidden, address)
		}
		return fmt.Errorf("%w: %s", ErrForbidden, host)
	}
	if !PublicAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbidden, ap.Addr())
	}
	return nil
}
