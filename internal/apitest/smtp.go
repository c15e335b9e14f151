package apitest

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"ermine/internal/config"
)

// Mailbox is a small SMTP server on 127.0.0.1 that keeps every message
// it receives, so tests can read the mail a node sends.
type Mailbox struct {
	t    testing.TB
	ln   net.Listener
	user string // AUTH PLAIN credentials required when set
	pass string
	tls  *tls.Config // STARTTLS offered when set
	ch   chan *Mail
}

// Mail is one received message.
type Mail struct {
	From    string
	To      []string
	Subject string
	Body    string // decoded text
	Header  mail.Header
}

// StartSMTP runs a mailbox until the test ends. With user set it offers
// AUTH PLAIN and refuses mail from clients that did not log in with
// user and pass.
func StartSMTP(t testing.TB, user, pass string) *Mailbox {
	t.Helper()
	return StartSMTPTLS(t, user, pass, nil, false)
}

// StartSMTPTLS is StartSMTP with TLS: the mailbox offers STARTTLS with
// cfg, or with implicit speaks TLS from the first byte.
func StartSMTPTLS(t testing.TB, user, pass string, cfg *tls.Config, implicit bool) *Mailbox {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("apitest: smtp listen: %v", err)
	}
	m := &Mailbox{t: t, ln: ln, user: user, pass: pass, ch: make(chan *Mail, 64)}
	if implicit {
		ln = tls.NewListener(ln, cfg)
		m.ln = ln
	} else {
		m.tls = cfg
	}
	t.Cleanup(func() { ln.Close() })
	go m.serve()
	return m
}

// Option points a node's [email] settings at the mailbox, in plain text.
func (m *Mailbox) Option() Option {
	host, port, _ := net.SplitHostPort(m.ln.Addr().String())
	n, _ := strconv.Atoi(port)
	return func(c *config.Config) {
		c.Email = config.Email{Host: host, Port: n, TLS: config.TLSNone, Username: m.user, Password: m.pass,
			From: "Ermine <noreply@ermine.test>"}
	}
}

// Addr is the mailbox's host:port.
func (m *Mailbox) Addr() string { return m.ln.Addr().String() }

// Wait returns the next message, failing the test after 5 seconds.
func (m *Mailbox) Wait() *Mail {
	m.t.Helper()
	select {
	case msg := <-m.ch:
		return msg
	case <-time.After(5 * time.Second):
		m.t.Fatal("apitest: no mail within 5s")
		return nil
	}
}

// None fails the test when a message arrives within d.
func (m *Mailbox) None(d time.Duration) {
	m.t.Helper()
	select {
	case msg := <-m.ch:
		m.t.Fatalf("apitest: unexpected mail to %v: %q", msg.To, msg.Subject)
	case <-time.After(d):
	}
}

// Token returns the path segment that follows prefix in the body (the
// token of a link such as https://app/login/verify/<token>), failing the
// test when there is none.
func (msg *Mail) Token(t testing.TB, prefix string) string {
	t.Helper()
	_, rest, ok := strings.Cut(msg.Body, prefix)
	if !ok {
		t.Fatalf("apitest: mail %q has no link with %q:\n%s", msg.Subject, prefix, msg.Body)
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r == '\r' || r == '\n' || r == ' ' || r == '/' })
	if end >= 0 {
		rest = rest[:end]
	}
	return rest
}

func (m *Mailbox) serve() {
	for {
		conn, err := m.ln.Accept()
		if err != nil {
			return
		}
		go m.session(conn)
	}
}

// session speaks enough SMTP for net/smtp: EHLO/HELO, AUTH PLAIN, MAIL,
// RCPT, DATA, RSET, NOOP and QUIT.
func (m *Mailbox) session(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	tp := textproto.NewConn(conn)
	reply := func(format string, args ...any) { _ = tp.PrintfLine(format, args...) }
	upgraded := false
	reply("220 mailbox.ermine.test ESMTP")
	var from string
	var to []string
	authed := m.user == ""
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			ext := []string{"mailbox.ermine.test"}
			if m.tls != nil && !upgraded {
				ext = append(ext, "STARTTLS")
			}
			if m.user != "" {
				ext = append(ext, "AUTH PLAIN")
			}
			for i, e := range ext {
				sep := "-"
				if i == len(ext)-1 {
					sep = " "
				}
				reply("250%s%s", sep, e)
			}
		case "STARTTLS":
			if m.tls == nil || upgraded {
				reply("502 not offered")
				continue
			}
			reply("220 go ahead")
			tc := tls.Server(conn, m.tls)
			if err := tc.Handshake(); err != nil {
				return
			}
			conn, tp, upgraded = tc, textproto.NewConn(tc), true
			from, to, authed = "", nil, m.user == ""
		case "HELO":
			reply("250 mailbox.ermine.test")
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			b, err := base64.StdEncoding.DecodeString(resp)
			parts := strings.Split(string(b), "\x00")
			if !strings.EqualFold(mech, "PLAIN") || err != nil || len(parts) != 3 || parts[1] != m.user || parts[2] != m.pass {
				reply("535 authentication failed")
				continue
			}
			authed = true
			reply("235 authenticated")
		case "MAIL":
			if !authed {
				reply("530 authentication required")
				continue
			}
			from = pathArg(arg)
			reply("250 ok")
		case "RCPT":
			to = append(to, pathArg(arg))
			reply("250 ok")
		case "DATA":
			reply("354 go ahead")
			raw, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			msg, err := parse(raw)
			if err != nil {
				reply("554 %v", err)
				continue
			}
			msg.From, msg.To = from, to
			m.ch <- msg
			from, to = "", nil
			reply("250 queued")
		case "RSET":
			from, to = "", nil
			reply("250 ok")
		case "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 command not recognised")
		}
	}
}

// pathArg returns the address of "FROM:<a@b> PARAMS" or "TO:<a@b>".
func pathArg(arg string) string {
	_, v, _ := strings.Cut(arg, ":")
	v = strings.TrimSpace(v)
	if i := strings.Index(v, ">"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimPrefix(v, "<")
}

// parse reads a message and decodes its subject and body.
func parse(raw []byte) (*Mail, error) {
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("read message: %w", err)
	}
	body := msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(bufio.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return nil, fmt.Errorf("decode subject: %w", err)
	}
	return &Mail{Subject: subject, Body: string(b), Header: msg.Header}, nil
}
