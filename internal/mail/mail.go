// Package mail sends Ermine's account mail (verification, password reset,
// deletion) through an SMTP server: plain, STARTTLS or implicit TLS, with
// optional PLAIN authentication, one connection per message.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"strconv"
	"strings"
	"time"
)

// Connection security modes.
const (
	StartTLS = "starttls" // plain connection upgraded with STARTTLS; refused if not offered
	TLS      = "tls"      // TLS from the first byte (usually port 465)
	None     = "none"     // plain text all along; only for relays on the same host
)

// Config says how to reach the SMTP server.
type Config struct {
	Host     string
	Port     int
	Security string // StartTLS, TLS or None
	Username string // empty for no authentication
	Password string
	From     string // e.g. "Ermine <noreply@example.com>"
	// Timeout bounds one whole delivery; 30 seconds when zero.
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (tests trust their own CA);
	// nil verifies the server's certificate for Host.
	TLSConfig *tls.Config
}

// SMTP sends mail through one SMTP server.
type SMTP struct {
	cfg  Config
	from *mail.Address
}

// New checks cfg and returns a sender.
func New(cfg Config) (*SMTP, error) {
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail: from address %q: %w", cfg.From, err)
	}
	switch cfg.Security {
	case StartTLS, TLS, None:
	default:
		return nil, fmt.Errorf("mail: unknown security mode %q", cfg.Security)
	}
	if cfg.Host == "" || cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("mail: bad server address %s:%d", cfg.Host, cfg.Port)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &SMTP{cfg: cfg, from: from}, nil
}

// errHeader is returned for a recipient or subject that would inject
// headers.
var errHeader = errors.New("mail: line break in a header value")

// Send delivers one plain-text UTF-8 message to one recipient.
func (s *SMTP) Send(ctx context.Context, to, subject, body string) error {
	if strings.ContainsAny(to, "\r\n") || strings.ContainsAny(subject, "\r\n") {
		return errHeader
	}
	rcpt, err := mail.ParseAddress(to)
	if err != nil {
		return fmt.Errorf("mail: recipient %q: %w", to, err)
	}
	msg, err := s.message(rcpt, subject, body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	c, err := s.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := s.deliver(c, rcpt.Address, msg); err != nil {
		return err
	}
	return c.Quit()
}

// dial connects and, for StartTLS, upgrades the connection.
func (s *SMTP) dial(ctx context.Context) (*smtp.Client, error) {
	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	tlsCfg := s.cfg.TLSConfig
	if tlsCfg == nil {
		tlsCfg = &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
	}
	var conn net.Conn
	var err error
	if s.cfg.Security == TLS {
		conn, err = (&tls.Dialer{Config: tlsCfg}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("mail: connect to %s: %w", addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, s.cfg.Host)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("mail: greeting from %s: %w", addr, err)
	}
	if err := c.Hello(helloName(s.from.Address)); err != nil {
		c.Close()
		return nil, fmt.Errorf("mail: hello: %w", err)
	}
	if s.cfg.Security == StartTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			c.Close()
			return nil, fmt.Errorf("mail: %s does not offer STARTTLS (set tls = \"none\" to send in plain text)", addr)
		}
		if err := c.StartTLS(tlsCfg); err != nil {
			c.Close()
			return nil, fmt.Errorf("mail: starttls: %w", err)
		}
	}
	return c, nil
}

// deliver authenticates when configured and sends the message.
func (s *SMTP) deliver(c *smtp.Client, rcpt string, msg []byte) error {
	if s.cfg.Username != "" {
		// net/smtp refuses PLAIN over an unencrypted connection except
		// to localhost, which is what we want.
		if err := c.Auth(smtp.PlainAuth("", s.cfg.Username, s.cfg.Password, s.cfg.Host)); err != nil {
			return fmt.Errorf("mail: authenticate: %w", err)
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return fmt.Errorf("mail: MAIL FROM: %w", err)
	}
	if err := c.Rcpt(rcpt); err != nil {
		return fmt.Errorf("mail: RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("mail: DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("mail: write message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("mail: end message: %w", err)
	}
	return nil
}

// message renders the headers and the quoted-printable body.
func (s *SMTP) message(to *mail.Address, subject, body string) ([]byte, error) {
	var b bytes.Buffer
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return nil, fmt.Errorf("mail: message id: %w", err)
	}
	fmt.Fprintf(&b, "From: %s\r\n", s.from.String())
	fmt.Fprintf(&b, "To: %s\r\n", to.String())
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", subject))
	fmt.Fprintf(&b, "Date: %s\r\n", time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id), helloName(s.from.Address))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(body)); err != nil {
		return nil, fmt.Errorf("mail: encode body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return nil, fmt.Errorf("mail: encode body: %w", err)
	}
	return b.Bytes(), nil
}

// helloName is the domain of the sender address, announced in EHLO.
func helloName(from string) string {
	if _, domain, ok := strings.Cut(from, "@"); ok && domain != "" {
		return domain
	}
	return "localhost"
}
