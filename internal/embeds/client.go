package embeds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbidden is returned for a URL Ermine will not fetch: a scheme other
// than http(s), a host name without a dot, a blocked domain, or an
// address that is not on the public internet (checked after DNS
// resolution, on every redirect hop).
var ErrForbidden = errors.New("embeds: address not allowed")

// ErrTooLarge is returned when a response body exceeds its byte cap.
var ErrTooLarge = errors.New("embeds: response too large")

// Limits of the outbound client, as the reference's january sets them.
const (
	totalTimeout   = 10 * time.Second
	connectTimeout = 5 * time.Second
	maxRedirects   = 5
)

// forbiddenPrefixes are the networks a fetch on a user's behalf must never
// reach, beyond what netip.Addr's own predicates (loopback, private,
// link-local, multicast, unspecified) already cover.
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

// PublicAddr reports whether a is an address on the public internet that a
// fetch on a user's behalf may reach. IPv4-mapped IPv6 addresses are
// refused outright: they are a classic way around checks that only look
// at one family.
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

// Resolver looks host names up. *net.Resolver satisfies it; tests pass
// their own to point a public-looking name at a loopback address.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ClientOptions configure the outbound client.
type ClientOptions struct {
	// UserAgent is sent with every request.
	UserAgent string
	// AllowedPrivateHosts are host names or literal addresses (without a
	// port) that may resolve to non-public addresses. Empty in
	// production; tests list their loopback server here.
	AllowedPrivateHosts []string
	// BlockedDomains are refused, with all their subdomains.
	BlockedDomains []string
	// Resolver looks names up; net.DefaultResolver when nil.
	Resolver Resolver
}

// Client is the one HTTP client Ermine uses for every request it makes on
// a user's behalf. Its dialer refuses non-public addresses after DNS
// resolution, so no check can be forgotten by a caller; redirects are
// followed at most maxRedirects times, each hop going through the same
// dialer and the same URL checks.
type Client struct {
	http     *http.Client
	ua       string
	allowed  map[string]bool
	blocked  []string
	resolver Resolver
}

// NewClient returns the outbound client.
func NewClient(o ClientOptions) *Client {
	c := &Client{ua: o.UserAgent, allowed: map[string]bool{}, resolver: o.Resolver}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	for _, h := range o.AllowedPrivateHosts {
		c.allowed[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
	for _, d := range o.BlockedDomains {
		if d = strings.Trim(strings.ToLower(d), "."); d != "" {
			c.blocked = append(c.blocked, d)
		}
	}
	guarded := &net.Dialer{Timeout: connectTimeout, Control: refusePrivate}
	open := &net.Dialer{Timeout: connectTimeout}
	tr := &http.Transport{
		// Never an environment proxy: the dialer must see the real
		// destination for its check to mean anything.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return c.dial(ctx, guarded, open, network, addr)
		},
		TLSHandshakeTimeout:   connectTimeout,
		ResponseHeaderTimeout: totalTimeout,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	c.http = &http.Client{
		Transport: tr,
		Timeout:   totalTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return c.checkURL(req.URL)
		},
	}
	return c
}

// refusePrivate is the dialer's last word: it runs after resolution, on
// the exact address about to be connected to.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbidden, address)
	}
	if !PublicAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbidden, ap.Addr())
	}
	return nil
}

// dial resolves addr's host itself and connects to the first address that
// answers. Hosts on the allowed list use a dialer without the check; all
// others go through refusePrivate.
func (c *Client) dial(ctx context.Context, guarded, open *net.Dialer, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := guarded
	if c.allowed[strings.ToLower(host)] {
		d = open
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = c.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	var errs []error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("no address for %s", host)
	}
	return nil, errors.Join(errs...)
}

// checkURL refuses what can be told from the URL alone: the scheme, user
// information, dotless host names and blocked domains. Addresses are
// checked by the dialer.
func (c *Client) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q", ErrForbidden, u.Scheme)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || u.User != nil {
		return fmt.Errorf("%w: %s", ErrForbidden, u.Redacted())
	}
	if c.allowed[host] {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !PublicAddr(ip) {
			return fmt.Errorf("%w: %s", ErrForbidden, ip)
		}
		return nil
	}
	// Names without a dot (localhost, intranet hosts) are refused before
	// any lookup, as the reference does.
	if !strings.Contains(strings.TrimSuffix(host, "."), ".") {
		return fmt.Errorf("%w: host %q", ErrForbidden, host)
	}
	h := strings.TrimSuffix(host, ".")
	for _, d := range c.blocked {
		if h == d || strings.HasSuffix(h, "."+d) {
			return fmt.Errorf("%w: blocked domain %q", ErrForbidden, h)
		}
	}
	return nil
}

// Get fetches raw with the client's checks, the given user agent (the
// client's own when empty) and Accept-Language en-US. The caller closes
// the body, which is capped at limit bytes: reading past it fails with
// ErrTooLarge.
func (c *Client) Get(ctx context.Context, raw, userAgent string, limit int64) (*http.Response, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrForbidden, err)
	}
	if err := c.checkURL(u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if userAgent == "" {
		userAgent = c.ua
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept-Language", "en-US")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, ErrTooLarge
	}
	resp.Body = &cappedBody{r: resp.Body, left: limit}
	return resp, nil
}

// cappedBody fails with ErrTooLarge once more than its limit is read.
type cappedBody struct {
	r    io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.r.Close() }

// CloseIdle closes the client's idle connections.
func (c *Client) CloseIdle() { c.http.CloseIdleConnections() }
