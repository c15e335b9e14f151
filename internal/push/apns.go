package push

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ermine/internal/chat"
)

// Apple's push services.
const (
	APNsProduction = "https://api.push.apple.com"
	APNsSandbox    = "https://api.sandbox.push.apple.com"
)

// APNsOptions configure an APNs sender.
type APNsOptions struct {
	// Key is the .p8 key's PEM (PKCS#8, P-256); KeyID and TeamID name it.
	Key    []byte
	KeyID  string
	TeamID string
	// Topic is the app's bundle id.
	Topic string
	// URL is the service's base (APNsProduction when empty). A plain
	// http URL is spoken to in HTTP/2 without TLS (a relay, tests).
	URL string
	// Client, when set, replaces the HTTP/2 client.
	Client *http.Client
}

// APNs sends alert notifications to Apple's push service over HTTP/2,
// authorised by a provider token: an ES256 JWT of the key, renewed every
// 50 minutes (Apple accepts one between 20 and 60 minutes old).
type APNs struct {
	o      APNsOptions
	key    *ecdsa.PrivateKey
	client *http.Client

	mu     sync.Mutex
	token  string
	issued time.Time
}

// ReadAPNsKey reads a .p8 key file.
func ReadAPNsKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("push: apn key: %w", err)
	}
	return b, nil
}

// NewAPNs returns an APNs sender.
func NewAPNs(o APNsOptions) (*APNs, error) {
	key, err := jwt.ParseECPrivateKeyFromPEM(o.Key)
	if err != nil {
		return nil, fmt.Errorf("push: apn key: %w", err)
	}
	if o.KeyID == "" || o.TeamID == "" || o.Topic == "" {
		return nil, fmt.Errorf("push: apn: key_id, team_id and topic are required")
	}
	if o.URL == "" {
		o.URL = APNsProduction
	}
	o.URL = strings.TrimRight(o.URL, "/")
	client := o.Client
	if client == nil {
		t := &http.Transport{ForceAttemptHTTP2: true, Proxy: http.ProxyFromEnvironment}
		t.Protocols = new(http.Protocols)
		if strings.HasPrefix(o.URL, "http:") {
			t.Protocols.SetUnencryptedHTTP2(true)
		} else {
			t.Protocols.SetHTTP2(true)
		}
		client = &http.Client{Transport: t, Timeout: 10 * time.Second}
	}
	return &APNs{o: o, key: key, client: client}, nil
}

// providerToken returns the current provider token, signing a new one
// when it is 50 minutes old.
func (a *APNs) providerToken() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" && time.Since(a.issued) < 50*time.Minute {
		return a.token, nil
	}
	now := time.Now()
	t := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": a.o.TeamID, "iat": now.Unix()})
	t.Header["kid"] = a.o.KeyID
	s, err := t.SignedString(a.key)
	if err != nil {
		return "", fmt.Errorf("push: apn token: %w", err)
	}
	a.token, a.issued = s, now
	return s, nil
}

// APNsPayload is the JSON body sent for n, shaped as the reference's push
// daemon shapes it: an alert with a title and body (or a localisation key
// for friend requests), sound, mutable-content, the channel as thread id
// and, for messages, the message and where to open it; calls carry their
// ids and no alert. Each carries the recipient's unread mention count as
// the badge when it is known; a badge update carries only that.
func APNsPayload(n *chat.MobilePush) map[string]any {
	if n.Type == chat.PushBadge {
		badge := 0
		if n.Badge != nil {
			badge = *n.Badge
		}
		return map[string]any{"aps": map[string]any{"badge": badge}}
	}
	aps := map[string]any{"mutable-content": 1}
	if n.Badge != nil {
		aps["badge"] = *n.Badge
	}
	p := map[string]any{"aps": aps}
	switch n.Type {
	case chat.PushFRReceive, chat.PushFRAccept:
		key := "push.fr.received"
		if n.Type == chat.PushFRAccept {
			key = "push.fr.accepted"
		}
		aps["alert"] = map[string]any{"loc-key": key, "loc-args": []string{n.Username}}
		aps["sound"] = "default"
	case chat.PushMessage:
		title := n.AuthorName
		switch n.ChannelType {
		case "Group":
			title = fmt.Sprintf("%s, #%s", n.AuthorName, n.ChannelName)
		case "TextChannel", "VoiceChannel":
			title = fmt.Sprintf("%s in #%s", n.AuthorName, n.ChannelName)
		}
		aps["alert"] = map[string]any{"title": title, "body": n.Body}
		aps["sound"] = "default"
		aps["thread-id"] = string(n.ChannelID)
		p["message"], p["url"] = n.Message, n.URL
		channelName := n.ChannelName
		if channelName == "" {
			channelName = title
		}
		p["author_avatar"], p["author_display_name"], p["channel_name"] = n.Icon, n.AuthorName, channelName
	case chat.PushDMCall:
		p["initiator_id"], p["channel_id"], p["started_at"], p["ended"] = string(n.InitiatorID), string(n.ChannelID), n.StartedAt, n.Ended
	default:
		aps["alert"] = map[string]any{"title": n.Title, "body": n.Body}
		aps["sound"] = "default"
	}
	return p
}

// Send delivers the notification in payload (a chat.MobilePush as JSON)
// to the device token in sub.Auth.
func (a *APNs) Send(ctx context.Context, sub Subscription, payload []byte) error {
	var n chat.MobilePush
	if err := json.Unmarshal(payload, &n); err != nil {
		return fmt.Errorf("%w: apn payload: %w", ErrRejected, err)
	}
	body, err := json.Marshal(APNsPayload(&n))
	if err != nil {
		return err
	}
	token, err := a.providerToken()
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.o.URL+"/3/device/"+url.PathEscape(sub.Auth), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "bearer "+token)
	req.Header.Set("apns-topic", a.o.Topic)
	req.Header.Set("apns-push-type", "alert")
	req.Header.Set("apns-priority", "10")
	req.Header.Set("Content-Type", "application/json")
	res, err := a.client.Do(req)
	if err != nil {
		return fmt.Errorf("push: apn: %w", err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 16<<10))
	var reason struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(answer, &reason)
	switch {
	case res.StatusCode == http.StatusOK:
		return nil
	case res.StatusCode == http.StatusGone || reason.Reason == "BadDeviceToken" || reason.Reason == "Unregistered":
		return fmt.Errorf("%w: apn: %s %s", ErrGone, res.Status, reason.Reason)
	case reason.Reason == "ExpiredProviderToken":
		a.mu.Lock()
		a.token = ""
		a.mu.Unlock()
		return fmt.Errorf("push: apn: %s", reason.Reason)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
		return fmt.Errorf("push: apn: %s %s", res.Status, reason.Reason)
	default:
		return fmt.Errorf("%w: apn: %s %s", ErrRejected, res.Status, reason.Reason)
	}
}
