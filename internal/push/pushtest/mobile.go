package pushtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MobileMessage is one notification a platform stand-in accepted.
type MobileMessage struct {
	Token string // the device token it was sent to
	// Data is an FCM message's data; Body an APNs request's JSON.
	Data map[string]string
	Body map[string]any
	// Header holds an APNs request's headers.
	Header http.Header
}

// FCM is a loopback stand-in for Google's OAuth 2.0 token endpoint and
// the FCM HTTP v1 API: it hands out access tokens only for JWT bearer
// assertions signed by its service account's key (RS256, the firebase
// messaging scope, itself as audience, not expired), and accepts
// messages:send only with such a token and a message of a token and
// string-valued data.
type FCM struct {
	t       testing.TB
	srv     *httptest.Server
	key     *rsa.PrivateKey
	Project string
	Email   string
	mu      sync.Mutex
	tokens  map[string]bool
	got     chan MobileMessage
	status  int  // answered to sends when not 0
	quiet   bool // refusals do not fail the test
}

// SetStatus makes the stand-in answer status (404: unregistered) to sends.
func (f *FCM) SetStatus(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

// Silence lets a test expect refusals: bad credentials are refused
// without failing it.
func (f *FCM) Silence(testing.TB) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.quiet = true
}

func (f *FCM) errorf(format string, args ...any) {
	f.mu.Lock()
	quiet := f.quiet
	f.mu.Unlock()
	if !quiet {
		f.t.Errorf(format, args...)
	}
}

// StartFCM starts the stand-in.
func StartFCM(t testing.TB) *FCM {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &FCM{t: t, key: key, Project: "ermine-test", Email: "push@ermine-test.iam.gserviceaccount.com",
		tokens: map[string]bool{}, got: make(chan MobileMessage, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", f.token)
	mux.HandleFunc("POST /v1/projects/{project}/messages:send", f.send)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the API's base (the [push.fcm] url).
func (f *FCM) URL() string { return f.srv.URL }

// ServiceAccountFile writes the service account's JSON key file into dir.
func (f *FCM) ServiceAccountFile(dir string) string {
	der, err := x509.MarshalPKCS8PrivateKey(f.key)
	if err != nil {
		f.t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": f.Project, "client_email": f.Email,
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"token_uri":   f.srv.URL + "/token",
	})
	path := filepath.Join(dir, "service-account.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		f.t.Fatal(err)
	}
	return path
}

func (f *FCM) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		f.errorf("fcm stand-in: token request %v", r.PostForm)
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(r.PostForm.Get("assertion"), claims, func(*jwt.Token) (any, error) { return &f.key.PublicKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithAudience(f.srv.URL+"/token"), jwt.WithIssuer(f.Email),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	if err == nil && claims["scope"] != "https://www.googleapis.com/auth/firebase.messaging" {
		err = fmt.Errorf("scope %v", claims["scope"])
	}
	if err != nil {
		f.errorf("fcm stand-in: assertion: %v", err)
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	}
	tok := rand.Text()
	f.mu.Lock()
	f.tokens[tok] = true
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3599, "token_type": "Bearer"})
}

func (f *FCM) send(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	status := f.status
	f.mu.Unlock()
	if !ok || r.PathValue("project") != f.Project {
		f.errorf("fcm stand-in: send with %q to project %q", r.Header.Get("Authorization"), r.PathValue("project"))
		http.Error(w, `{"error":{"status":"UNAUTHENTICATED"}}`, http.StatusUnauthorized)
		return
	}
	var body struct {
		Message struct {
			Token string            `json:"token"`
			Data  map[string]string `json:"data"` // FCM refuses any other value type
		} `json:"message"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil || body.Message.Token == "" || body.Message.Data["type"] == "" {
		f.errorf("fcm stand-in: message %s: %v", raw, err)
		http.Error(w, `{"error":{"status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"error":{"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}`)
		return
	}
	f.got <- MobileMessage{Token: body.Message.Token, Data: body.Message.Data}
	_, _ = fmt.Fprintf(w, `{"name":"projects/%s/messages/%d"}`, f.Project, time.Now().UnixNano())
}

// Wait returns the next message accepted, failing after timeout.
func (f *FCM) Wait(timeout time.Duration) MobileMessage { return wait(f.t, f.got, timeout) }

// None fails the test when a message arrives within d.
func (f *FCM) None(d time.Duration) { none(f.t, f.got, d) }

// APNs is a loopback stand-in for Apple's push service: HTTP/2 without
// TLS (it refuses HTTP/1), accepting POST /3/device/{token} only with a
// provider token signed by its key (ES256, kid and team as configured,
// issued within the hour), the configured topic and a JSON body with an
// aps dictionary.
type APNs struct {
	t      testing.TB
	srv    *httptest.Server
	key    *ecdsa.PrivateKey
	KeyID  string
	TeamID string
	Topic  string
	got    chan MobileMessage
	mu     sync.Mutex
	quiet  bool
}

// Silence lets a test expect refusals: bad credentials are refused
// without failing it.
func (a *APNs) Silence(testing.TB) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.quiet = true
}

// StartAPNs starts the stand-in.
func StartAPNs(t testing.TB) *APNs {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := &APNs{t: t, key: key, KeyID: "ABC123DEFG", TeamID: "TEAM456789", Topic: "chat.ermine.test",
		got: make(chan MobileMessage, 64)}
	a.srv = httptest.NewUnstartedServer(http.HandlerFunc(a.handle))
	a.srv.Config.Protocols = new(http.Protocols)
	a.srv.Config.Protocols.SetUnencryptedHTTP2(true)
	a.srv.Start()
	t.Cleanup(a.srv.Close)
	return a
}

// URL is the service's base (the [push.apn] url).
func (a *APNs) URL() string { return a.srv.URL }

// KeyFile writes the .p8 key into dir.
func (a *APNs) KeyFile(dir string) string {
	der, err := x509.MarshalPKCS8PrivateKey(a.key)
	if err != nil {
		a.t.Fatal(err)
	}
	path := filepath.Join(dir, "AuthKey_"+a.KeyID+".p8")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		a.t.Fatal(err)
	}
	return path
}

func (a *APNs) handle(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, reason string, format string, args ...any) {
		a.mu.Lock()
		quiet := a.quiet
		a.mu.Unlock()
		if !quiet {
			a.t.Errorf("apns stand-in: "+format, args...)
		}
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"reason":%q}`, reason)
	}
	if r.ProtoMajor != 2 {
		fail(http.StatusBadRequest, "BadRequest", "protocol %s, want HTTP/2", r.Proto)
		return
	}
	token, ok := strings.CutPrefix(r.URL.Path, "/3/device/")
	if r.Method != http.MethodPost || !ok || token == "" {
		fail(http.StatusNotFound, "BadPath", "%s %s", r.Method, r.URL.Path)
		return
	}
	bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "bearer ")
	claims := jwt.MapClaims{}
	parsed, err := jwt.ParseWithClaims(bearer, claims, func(*jwt.Token) (any, error) { return &a.key.PublicKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(a.TeamID), jwt.WithIssuedAt())
	if err == nil && parsed.Header["kid"] != a.KeyID {
		err = fmt.Errorf("kid %v", parsed.Header["kid"])
	}
	if iat, _ := claims.GetIssuedAt(); err == nil && (iat == nil || time.Since(iat.Time) > time.Hour) {
		err = fmt.Errorf("iat %v", iat)
	}
	if err != nil {
		fail(http.StatusForbidden, "InvalidProviderToken", "provider token: %v", err)
		return
	}
	if r.Header.Get("apns-topic") != a.Topic || r.Header.Get("apns-push-type") == "" {
		fail(http.StatusBadRequest, "BadTopic", "headers %v", r.Header)
		return
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil || body["aps"] == nil {
		fail(http.StatusBadRequest, "PayloadEmpty", "body %s", raw)
		return
	}
	if aps, _ := body["aps"].(map[string]any); aps != nil {
		if b, ok := aps["badge"]; ok {
			if n, isNum := b.(float64); !isNum || n < 0 || n != float64(int64(n)) {
				fail(http.StatusBadRequest, "BadBadge", "aps.badge %v is not a non-negative integer", b)
				return
			}
		}
	} else {
		fail(http.StatusBadRequest, "PayloadEmpty", "aps %v is not a dictionary", body["aps"])
		return
	}
	if token == "unregistered" {
		w.WriteHeader(http.StatusGone)
		_, _ = io.WriteString(w, `{"reason":"Unregistered"}`)
		return
	}
	a.got <- MobileMessage{Token: token, Body: body, Header: r.Header.Clone()}
	w.Header().Set("apns-id", rand.Text())
}

// Wait returns the next notification accepted, failing after timeout.
func (a *APNs) Wait(timeout time.Duration) MobileMessage { return wait(a.t, a.got, timeout) }

// None fails the test when a notification arrives within d.
func (a *APNs) None(d time.Duration) { none(a.t, a.got, d) }

func wait(t testing.TB, ch chan MobileMessage, timeout time.Duration) MobileMessage {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(timeout):
		t.Fatalf("pushtest: no notification within %s", timeout)
		return MobileMessage{}
	}
}

func none(t testing.TB, ch chan MobileMessage, d time.Duration) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("pushtest: unexpected notification to %s: %v %v", m.Token, m.Data, m.Body)
	case <-time.After(d):
	}
}

// SubscribeUnifiedPush makes a subscription the way a UnifiedPush
// distributor (ntfy and the like) hands one to an app: a Web Push
// endpoint of the distributor's own shape, a topic path with the ?up=1
// marker, and the app's P-256 key and auth secret. The distributor
// forwards what it receives as is; the service decrypts it as the app
// would.
func (s *Service) SubscribeUnifiedPush() Subscription {
	sub := s.Subscribe()
	path := strings.TrimPrefix(sub.Endpoint, s.srv.URL)
	topic := "/up" + strings.TrimPrefix(path, "/wpush/")
	s.mu.Lock()
	s.subs[topic] = s.subs[path]
	delete(s.subs, path)
	s.mu.Unlock()
	sub.Endpoint = s.srv.URL + topic + "?up=1"
	return sub
}
