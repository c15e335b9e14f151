// Package pushtest is a loopback Web Push service for tests. It hands out
// subscriptions with their own P-256 keys and auth secrets and, for every
// notification posted to one, checks the VAPID authorization (an ES256
// JWT signed with the expected public key, for the endpoint's origin, not
// expired) and decrypts the aes128gcm payload (RFC 8291) as a browser
// would. It answers 201, or the status set for the subscription.
package pushtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Subscription is what a browser would hand the server.
type Subscription struct {
	Endpoint string `json:"endpoint"`
	P256DH   string `json:"p256dh"`
	Auth     string `json:"auth"`
}

// Message is one notification received and decrypted.
type Message struct {
	Endpoint string
	Payload  []byte
	// Claims are the VAPID JWT's claims (aud, exp, sub).
	Claims map[string]any
	// Status is what the service answered.
	Status int
}

type sub struct {
	key    *ecdh.PrivateKey
	auth   []byte
	status int
}

// Service is a running loopback push service.
type Service struct {
	t        testing.TB
	srv      *httptest.Server
	vapidPub string
	mu       sync.Mutex
	subs     map[string]*sub
	got      chan Message
}

// Start starts a push service that accepts notifications signed with the
// VAPID public key vapidPublic (base64url).
func Start(t testing.TB, vapidPublic string) *Service {
	s := &Service{t: t, vapidPub: vapidPublic, subs: map[string]*sub{}, got: make(chan Message, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

// Subscribe makes a new subscription with fresh keys.
func (s *Service) Subscribe() Subscription {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		s.t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	path := fmt.Sprintf("/wpush/%x", id)
	s.mu.Lock()
	s.subs[path] = &sub{key: k, auth: auth, status: http.StatusCreated}
	s.mu.Unlock()
	enc := base64.RawURLEncoding
	return Subscription{Endpoint: s.srv.URL + path, P256DH: enc.EncodeToString(k.PublicKey().Bytes()), Auth: enc.EncodeToString(auth)}
}

// SetStatus makes the service answer status for the subscription (410
// says it expired).
func (s *Service) SetStatus(sb Subscription, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[strings.TrimPrefix(sb.Endpoint, s.srv.URL)].status = status
}

// Wait returns the next notification, failing the test after timeout.
func (s *Service) Wait(timeout time.Duration) Message {
	s.t.Helper()
	select {
	case m := <-s.got:
		return m
	case <-time.After(timeout):
		s.t.Fatalf("pushtest: no notification within %s", timeout)
		return Message{}
	}
}

// None fails the test if a notification arrives within d.
func (s *Service) None(d time.Duration) {
	s.t.Helper()
	select {
	case m := <-s.got:
		s.t.Fatalf("pushtest: unexpected notification to %s: %s", m.Endpoint, m.Payload)
	case <-time.After(d):
	}
}

func (s *Service) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sb := s.subs[r.URL.Path]
	s.mu.Unlock()
	if r.Method != http.MethodPost || sb == nil {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	claims, err := s.checkVAPID(r.Header.Get("Authorization"))
	if err != nil {
		s.t.Errorf("pushtest: VAPID: %v", err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.Header.Get("Content-Encoding") != "aes128gcm" || r.Header.Get("TTL") == "" {
		s.t.Errorf("pushtest: headers %v", r.Header)
	}
	plain, err := Decrypt(body, sb.key, sb.auth)
	if err != nil {
		s.t.Errorf("pushtest: decrypt: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.WriteHeader(sb.status)
	select {
	case s.got <- Message{Endpoint: s.srv.URL + r.URL.Path, Payload: plain, Claims: claims, Status: sb.status}:
	default:
		s.t.Errorf("pushtest: too many notifications unread")
	}
}

// checkVAPID verifies "vapid t=<jwt>, k=<public key>".
func (s *Service) checkVAPID(h string) (map[string]any, error) {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return nil, fmt.Errorf("authorization %q is not vapid", h)
	}
	var tok, key string
	for part := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			tok = v
		case "k":
			key = v
		}
	}
	if key != s.vapidPub {
		return nil, fmt.Errorf("k = %q, want the instance's public key", key)
	}
	pub, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		return nil, err
	}
	vapid, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pub)
	if err != nil {
		return nil, fmt.Errorf("k is not a P-256 point: %w", err)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, errors.New("t is not a JWT")
	}
	var header map[string]any
	if err := decodeSegment(parts[0], &header); err != nil || header["alg"] != "ES256" {
		return nil, fmt.Errorf("header %v: %v", header, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return nil, errors.New("bad signature encoding")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(vapid, digest[:],
		new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, errors.New("signature does not verify")
	}
	var claims map[string]any
	if err := decodeSegment(parts[1], &claims); err != nil {
		return nil, err
	}
	if claims["aud"] != s.srv.URL {
		return nil, fmt.Errorf("aud = %v, want %s", claims["aud"], s.srv.URL)
	}
	exp, _ := claims["exp"].(float64)
	if now := float64(time.Now().Unix()); exp < now || exp > now+24*3600 {
		return nil, fmt.Errorf("exp = %v", claims["exp"])
	}
	if sub, _ := claims["sub"].(string); !strings.HasPrefix(sub, "mailto:") && !strings.HasPrefix(sub, "https:") {
		return nil, fmt.Errorf("sub = %v", claims["sub"])
	}
	return claims, nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Decrypt opens an aes128gcm Web Push body (RFC 8291 §3, RFC 8188) with
// the subscription's private key and auth secret.
func Decrypt(body []byte, key *ecdh.PrivateKey, authSecret []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body too short")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen || idlen != 65 || rs < 18 {
		return nil, errors.New("bad header")
	}
	asPub, ct := body[21:21+idlen], body[21+idlen:]
	if uint32(len(ct)) > rs {
		return nil, errors.New("more than one record")
	}
	peer, err := ecdh.P256().NewPublicKey(asPub)
	if err != nil {
		return nil, err
	}
	secret, err := key.ECDH(peer)
	if err != nil {
		return nil, err
	}
	prkKey := hmacSum(authSecret, secret)
	info := append(append([]byte("WebPush: info\x00"), key.PublicKey().Bytes()...), asPub...)
	ikm := hmacSum(prkKey, append(info, 1))
	prk := hmacSum(salt, ikm)
	cek := hmacSum(prk, []byte("Content-Encoding: aes128gcm\x00\x01"))[:16]
	nonce := hmacSum(prk, []byte("Content-Encoding: nonce\x00\x01"))[:12]
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ct, nil)
	if err != nil {
		return nil, err
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, errors.New("no last-record delimiter")
	}
	return plain[:len(plain)-1], nil
}

func hmacSum(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}
