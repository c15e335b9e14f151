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

	"ermine/internal/egress"
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
// the exact address about to be connected to (egress.Control, the rule
// push endpoints follow too).
func refusePrivate(network, address string, c syscall.RawConn) error {
	if err := egress.Control(network, address, c); err != nil {
		return fmt.Errorf("%w: %w", ErrForbidden, err)
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
	// Literal addresses that are not public and names without a dot
	// (localhost, intranet hosts) are refused before any lookup.
	if err := egress.CheckHost(host); err != nil {
		return fmt.Errorf("%w: %w", ErrForbidden, err)
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
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
