package push

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ermine/internal/chat"
)

// FCMScope is the OAuth 2.0 scope of the FCM HTTP v1 API.
const FCMScope = "https://www.googleapis.com/auth/firebase.messaging"

// ServiceAccount is the part of a Google service account key file FCM
// needs.
type ServiceAccount struct {
	ClientEmail string `json:"client_email"`
	PrivateKey  string `json:"private_key"`
	TokenURI    string `json:"token_uri"`
	ProjectID   string `json:"project_id"`
}

// ReadServiceAccount reads a service account's JSON key file.
func ReadServiceAccount(path string) (ServiceAccount, error) {
	var sa ServiceAccount
	b, err := os.ReadFile(path)
	if err != nil {
		return sa, fmt.Errorf("push: fcm service account: %w", err)
	}
	if err := json.Unmarshal(b, &sa); err != nil {
		return sa, fmt.Errorf("push: fcm service account %s: %w", path, err)
	}
	if sa.ClientEmail == "" || sa.PrivateKey == "" || sa.ProjectID == "" {
		return sa, fmt.Errorf("push: fcm service account %s: client_email, private_key and project_id are required", path)
	}
	if sa.TokenURI == "" {
		sa.TokenURI = "https://oauth2.googleapis.com/token"
	}
	return sa, nil
}

// FCM sends data messages through the FCM HTTP v1 API, authorised by an
// OAuth 2.0 access token it obtains for the service account (the JWT
// bearer grant of RFC 7523, signed RS256) and reuses until it nears its
// expiry.
type FCM struct {
	sa     ServiceAccount
	key    *rsa.PrivateKey
	base   string
	client *http.Client

	mu      sync.Mutex
	token   string
	expires time.Time
}

// NewFCM returns an FCM sender for sa; base is the API's base URL
// (https://fcm.googleapis.com when empty) and client nil uses a client
// with a 10 s timeout.
func NewFCM(sa ServiceAccount, base string, client *http.Client) (*FCM, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(sa.PrivateKey))
	if err != nil {
		return nil, fmt.Errorf("push: fcm private key: %w", err)
	}
	if base == "" {
		base = "https://fcm.googleapis.com"
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &FCM{sa: sa, key: key, base: strings.TrimRight(base, "/"), client: client}, nil
}

// accessToken returns a valid access token, asking the token endpoint
// for a new one when the last is missing or about to expire.
func (f *FCM) accessToken(ctx context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token != "" && time.Until(f.expires) > time.Minute {
		return f.token, nil
	}
	now := time.Now()
	assertion, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": f.sa.ClientEmail, "scope": FCMScope, "aud": f.sa.TokenURI,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}).SignedString(f.key)
	if err != nil {
		return "", fmt.Errorf("push: fcm assertion: %w", err)
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.sa.TokenURI, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := f.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("push: fcm token: %w", err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode != http.StatusOK {
		err := fmt.Errorf("push: fcm token: %s: %.200s", res.Status, body)
		if res.StatusCode >= 400 && res.StatusCode < 500 {
			// Wrong credentials: retrying the same notification won't help.
			return "", fmt.Errorf("%w: %w", ErrRejected, err)
		}
		return "", err
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("push: fcm token: no access_token in %.200s", body)
	}
	f.token, f.expires = tok.AccessToken, now.Add(time.Duration(tok.ExpiresIn)*time.Second)
	return f.token, nil
}

// forget drops the cached access token after the API refused it.
func (f *FCM) forget(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token == token {
		f.token = ""
	}
}

// FCMData is the data of an FCM message for n, as the reference's push
// daemon sends it: every value a string (the API accepts nothing else).
func FCMData(n *chat.MobilePush) map[string]string {
	d := map[string]string{"type": n.Type}
	switch n.Type {
	case chat.PushFRReceive, chat.PushFRAccept:
		d["id"], d["username"] = string(n.UserID), n.Username
	case chat.PushMessage:
		if n.Message != nil {
			d["message"] = string(n.Message.ID)
		}
		d["body"], d["image"], d["channel"] = n.Body, n.Icon, string(n.ChannelID)
		d["author"], d["author_name"] = string(n.AuthorID), n.AuthorName
	case chat.PushDMCall:
		d["initiator_id"], d["channel_id"], d["started_at"] = string(n.InitiatorID), string(n.ChannelID), n.StartedAt
		d["ended"], d["duration"] = strconv.FormatBool(n.Ended), strconv.Itoa(n.RingSeconds)
	default:
		d["type"] = chat.PushGeneric
		d["title"], d["body"] = n.Title, n.Body
		if n.Image != "" {
			d["image"] = n.Image
		}
	}
	return d
}

// Send delivers the notification in payload (a chat.MobilePush as JSON)
// to the device token in sub.Auth.
func (f *FCM) Send(ctx context.Context, sub Subscription, payload []byte) error {
	var n chat.MobilePush
	if err := json.Unmarshal(payload, &n); err != nil {
		return fmt.Errorf("%w: fcm payload: %w", ErrRejected, err)
	}
	body, err := json.Marshal(map[string]any{"message": map[string]any{"token": sub.Auth, "data": FCMData(&n)}})
	if err != nil {
		return err
	}
	token, err := f.accessToken(ctx)
	if err != nil {
		return err
	}
	endpoint := f.base + "/v1/projects/" + url.PathEscape(f.sa.ProjectID) + "/messages:send"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := f.client.Do(req)
	if err != nil {
		return fmt.Errorf("push: fcm: %w", err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	switch {
	case res.StatusCode == http.StatusOK:
		return nil
	case res.StatusCode == http.StatusNotFound || bytes.Contains(answer, []byte("UNREGISTERED")):
		return fmt.Errorf("%w: fcm: %s", ErrGone, res.Status)
	case res.StatusCode == http.StatusUnauthorized:
		f.forget(token) // retried with a fresh token
		return fmt.Errorf("push: fcm: %s: %.200s", res.Status, answer)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
		return fmt.Errorf("push: fcm: %s", res.Status)
	default:
		return fmt.Errorf("%w: fcm: %s: %.200s", ErrRejected, res.Status, answer)
	}
}
