package server

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// behindProxies makes a request that comes from a trusted reverse proxy
// count as coming from the client its X-Forwarded-For names: the
// request's RemoteAddr becomes that client's address, which is what rate
// limits, the cap on unauthenticated sockets and the logs read. The client
// is the rightmost address of the header that is not itself a trusted
// proxy (the addresses to its left were written by the client and may be
// forged). Without trusted proxies it is next unchanged.
func behindProxies(trusted []netip.Prefix, next http.Handler) http.Handler {
	if len(trusted) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if client, ok := forwardedClient(trusted, r.RemoteAddr, r.Header.Values("X-Forwarded-For")); ok {
			r.RemoteAddr = net.JoinHostPort(client.String(), "0")
		}
		next.ServeHTTP(w, r)
	})
}

// forwardedClient returns the client behind the proxies when remote (a
// host:port) is a trusted proxy and the header names one.
func forwardedClient(trusted []netip.Prefix, remote string, header []string) (netip.Addr, bool) {
	peer, err := netip.ParseAddrPort(remote)
	if err != nil || !isTrusted(trusted, peer.Addr().Unmap()) {
		return netip.Addr{}, false
	}
	var hops []string
	for _, h := range header {
		hops = append(hops, strings.Split(h, ",")...)
	}
	var client netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a garbled hop: trust nothing further left
		}
		client = a.Unmap()
		if !isTrusted(trusted, client) {
			return client, true
		}
	}
	return client, client.IsValid()
}

func isTrusted(trusted []netip.Prefix, a netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
