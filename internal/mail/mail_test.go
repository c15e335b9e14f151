package mail_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/mail"
)

// selfSigned returns a server TLS config for 127.0.0.1 and a client
// config that trusts it.
func selfSigned(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	client = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	return server, client
}

func hostPort(t *testing.T, addr string) (string, int) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(port)
	return host, n
}

func TestSend(t *testing.T) {
	srvTLS, cliTLS := selfSigned(t)
	for _, tc := range []struct {
		name     string
		security string
		box      func(t *testing.T) *apitest.Mailbox
		client   *tls.Config
		wantErr  string
	}{
		{"plain with auth", mail.None, func(t *testing.T) *apitest.Mailbox { return apitest.StartSMTP(t, "u", "p") }, nil, ""},
		{"starttls", mail.StartTLS, func(t *testing.T) *apitest.Mailbox { return apitest.StartSMTPTLS(t, "u", "p", srvTLS, false) }, cliTLS, ""},
		{"implicit tls", mail.TLS, func(t *testing.T) *apitest.Mailbox { return apitest.StartSMTPTLS(t, "u", "p", srvTLS, true) }, cliTLS, ""},
		{"starttls not offered", mail.StartTLS, func(t *testing.T) *apitest.Mailbox { return apitest.StartSMTP(t, "u", "p") }, cliTLS, "does not offer STARTTLS"},
		{"untrusted certificate", mail.TLS, func(t *testing.T) *apitest.Mailbox { return apitest.StartSMTPTLS(t, "u", "p", srvTLS, true) }, nil, "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			box := tc.box(t)
			host, port := hostPort(t, box.Addr())
			m, err := mail.New(mail.Config{Host: host, Port: port, Security: tc.security, Username: "u", Password: "p",
				From: "Ermine <noreply@ermine.test>", TLSConfig: tc.client, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			err = m.Send(context.Background(), "ласка@ermine.test", "Grüße", "Hello\r\nhttps://app.test/login/verify/"+strings.Repeat("t", 90)+"\r\n")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Send = %v, want an error about %q", err, tc.wantErr)
				}
				box.None(50 * time.Millisecond)
				return
			}
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			got := box.Wait()
			if got.From != "noreply@ermine.test" || len(got.To) != 1 || got.To[0] != "ласка@ermine.test" || got.Subject != "Grüße" {
				t.Errorf("mail = %+v", got)
			}
			// The long link survives quoted-printable line wrapping.
			if tok := got.Token(t, "/login/verify/"); tok != strings.Repeat("t", 90) {
				t.Errorf("token = %q", tok)
			}
		})
	}
}

func TestSendRefuses(t *testing.T) {
	box := apitest.StartSMTP(t, "u", "p")
	host, port := hostPort(t, box.Addr())
	m, err := mail.New(mail.Config{Host: host, Port: port, Security: mail.None, Username: "u", Password: "wrong",
		From: "noreply@ermine.test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, to, subject string
	}{
		{"wrong password", "a@ermine.test", "hi"},
		{"header injection in subject", "a@ermine.test", "hi\r\nBcc: victim@example.com"},
		{"header injection in recipient", "a@ermine.test\r\nBcc: victim@example.com", "hi"},
		{"not an address", "nobody", "hi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := m.Send(context.Background(), tc.to, tc.subject, "body"); err == nil {
				t.Error("Send succeeded")
			}
		})
	}
	box.None(50 * time.Millisecond)

	for _, cfg := range []mail.Config{
		{Host: "h", Port: 25, Security: "ssl", From: "a@b.c"},
		{Host: "h", Port: 25, Security: mail.None, From: "not an address"},
		{Host: "", Port: 25, Security: mail.None, From: "a@b.c"},
		{Host: "h", Port: 0, Security: mail.None, From: "a@b.c"},
	} {
		if _, err := mail.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}
