// Package voice talks to LiveKit, the media server behind Ermine's voice
// channels: it mints the short-lived join tokens clients connect with,
// calls LiveKit's room API (Twirp JSON over HTTP), and verifies and
// parses the webhooks LiveKit posts back. It makes no decisions: who may
// join and with which grants is app's business.
package voice

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Node is one LiveKit server.
type Node struct {
	Name      string
	URL       string // http(s) base of the server API, used by Ermine
	PublicURL string // ws(s) URL clients connect to
	APIKey    string
	APISecret string
}

// Source is what a track carries. It has one spelling, LiveKit's in
// grants; webhooks' enum names (MICROPHONE, ...) are read into it.
type Source string

// The sources of tracks.
const (
	SourceUnknown          Source = "unknown"
	SourceMicrophone       Source = "microphone"
	SourceCamera           Source = "camera"
	SourceScreenShare      Source = "screen_share"
	SourceScreenShareAudio Source = "screen_share_audio"
)

// EventKind is the kind of a LiveKit webhook event.
type EventKind string

// The webhook events Ermine acts on (LiveKit sends others, kept as they come).
const (
	ParticipantJoined            EventKind = "participant_joined"
	ParticipantLeft              EventKind = "participant_left"
	ParticipantConnectionAborted EventKind = "participant_connection_aborted"
	TrackPublished               EventKind = "track_published"
	TrackUnpublished             EventKind = "track_unpublished"
	TrackMuted                   EventKind = "track_muted"
	TrackUnmuted                 EventKind = "track_unmuted"
	RoomFinished                 EventKind = "room_finished"
)

// Grants are what a participant may do in a room.
type Grants struct {
	CanPublish   bool
	CanSubscribe bool
	// Sources lists what may be published (microphone, camera ...); empty
	// with CanPublish false means nothing.
	Sources []Source
}

// Participant names the user behind a token.
type Participant struct {
	Identity string // the user id
	Name     string // username#discriminator
	Metadata string // the user's JSON
}

// Service is what Ermine needs from its LiveKit nodes. LiveKit
// implements it over HTTP; tests point it at a fake Twirp server.
type Service interface {
	// Node returns the node called name.
	Node(name string) (Node, bool)
	// Nodes lists the nodes in configuration order.
	Nodes() []Node
	// Token mints a join token for room on node, valid for ttl.
	Token(node string, room string, p Participant, g Grants, ttl time.Duration) (string, error)
	// CreateRoom creates room on node, or keeps the existing one.
	CreateRoom(ctx context.Context, node, room, metadata string) error
	// RemoveParticipant disconnects identity from room; a participant
	// that is not there is not an error.
	RemoveParticipant(ctx context.Context, node, room, identity string) error
	// UpdateParticipant changes what identity may do in room; a
	// participant that is not there is not an error.
	UpdateParticipant(ctx context.Context, node, room, identity string, g Grants) error
	// Webhook verifies a webhook's Authorization header against the
	// body and returns the event and the node that signed it.
	Webhook(authorization string, body []byte) (*Event, error)
}

// LiveKit is a Service over LiveKit's HTTP API.
type LiveKit struct {
	nodes  []Node
	client *http.Client
	now    func() time.Time
}

// New returns a LiveKit service over nodes. client may be nil.
func New(nodes []Node, client *http.Client) *LiveKit {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &LiveKit{nodes: nodes, client: client, now: time.Now}
}

// Nodes lists the nodes.
func (l *LiveKit) Nodes() []Node { return l.nodes }

// Node returns the node called name.
func (l *LiveKit) Node(name string) (Node, bool) {
	for _, n := range l.nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// videoGrant is LiveKit's grant claim (protocol auth.VideoGrant).
type videoGrant struct {
	RoomCreate        bool     `json:"roomCreate,omitempty"`
	RoomAdmin         bool     `json:"roomAdmin,omitempty"`
	RoomJoin          bool     `json:"roomJoin,omitempty"`
	Room              string   `json:"room,omitempty"`
	CanPublish        *bool    `json:"canPublish,omitempty"`
	CanSubscribe      *bool    `json:"canSubscribe,omitempty"`
	CanPublishData    *bool    `json:"canPublishData,omitempty"`
	CanPublishSources []string `json:"canPublishSources,omitempty"`
}

// claims are LiveKit's token claims (protocol auth.ClaimGrants).
type claims struct {
	jwt.RegisteredClaims
	Name     string      `json:"name,omitempty"`
	Video    *videoGrant `json:"video,omitempty"`
	Metadata string      `json:"metadata,omitempty"`
	Sha256   string      `json:"sha256,omitempty"`
}

func (l *LiveKit) sign(n Node, c claims, ttl time.Duration) (string, error) {
	now := l.now()
	c.Issuer = n.APIKey
	c.NotBefore = jwt.NewNumericDate(now.Add(-5 * time.Second))
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(n.APISecret))
}

// Token mints a join token.
func (l *LiveKit) Token(node, room string, p Participant, g Grants, ttl time.Duration) (string, error) {
	n, ok := l.Node(node)
	if !ok {
		return "", fmt.Errorf("voice: unknown node %q", node)
	}
	no := false
	c := claims{Name: p.Name, Metadata: p.Metadata, Video: &videoGrant{
		RoomJoin: true, Room: room, CanPublish: &g.CanPublish, CanSubscribe: &g.CanSubscribe,
		CanPublishData: &no, CanPublishSources: sources(g),
	}}
	c.Subject = p.Identity
	return l.sign(n, c, ttl)
}

// sources returns the grant's sources, never empty: LiveKit reads an
// empty list as "any source", so a participant who may publish nothing
// gets CanPublish false and one harmless entry.
func sources(g Grants) []string {
	if len(g.Sources) == 0 {
		return []string{string(SourceMicrophone)}
	}
	out := make([]string, len(g.Sources))
	for i, s := range g.Sources {
		out[i] = string(s)
	}
	return out
}

// twirp posts a RoomService call to node.
func (l *LiveKit) twirp(ctx context.Context, node, method, room string, in any) error {
	n, ok := l.Node(node)
	if !ok {
		return fmt.Errorf("voice: unknown node %q", node)
	}
	c := claims{Video: &videoGrant{RoomCreate: true, RoomAdmin: true, Room: room}}
	token, err := l.sign(n, c, time.Minute)
	if err != nil {
		return err
	}
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	url := strings.TrimRight(n.URL, "/") + "/twirp/livekit.RoomService/" + method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := l.client.Do(req)
	if err != nil {
		return fmt.Errorf("voice: %s on %s: %w", method, node, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 == 2 {
		return nil
	}
	var te struct {
		Code string `json:"code"`
		Msg  string `json:"msg"`
	}
	_ = json.Unmarshal(out, &te)
	if te.Code == "not_found" {
		return ErrNotFound
	}
	return fmt.Errorf("voice: %s on %s: %d %s %s", method, node, res.StatusCode, te.Code, te.Msg)
}

// Ping checks that node answers over HTTP (LiveKit serves "OK" at its
// root); any answer below 500 counts, a refused connection, a timeout
// or a server error does not.
func (l *LiveKit) Ping(ctx context.Context, node string) error {
	n, ok := l.Node(node)
	if !ok {
		return fmt.Errorf("voice: unknown node %q", node)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(n.URL, "/")+"/", nil)
	if err != nil {
		return err
	}
	res, err := l.client.Do(req)
	if err != nil {
		return fmt.Errorf("voice: ping %s: %w", node, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 4<<10))
	if res.StatusCode >= 500 {
		return fmt.Errorf("voice: ping %s: %s", node, res.Status)
	}
	return nil
}

// ErrNotFound is a room or participant LiveKit does not know.
var ErrNotFound = errors.New("voice: not found")

// CreateRoom creates room with a five-minute empty timeout.
func (l *LiveKit) CreateRoom(ctx context.Context, node, room, metadata string) error {
	return l.twirp(ctx, node, "CreateRoom", room, map[string]any{"name": room, "empty_timeout": 300, "metadata": metadata})
}

// RemoveParticipant disconnects identity from room.
func (l *LiveKit) RemoveParticipant(ctx context.Context, node, room, identity string) error {
	err := l.twirp(ctx, node, "RemoveParticipant", room, map[string]any{"room": room, "identity": identity})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// UpdateParticipant changes identity's permissions in room.
func (l *LiveKit) UpdateParticipant(ctx context.Context, node, room, identity string, g Grants) error {
	src := make([]string, 0, 4)
	for _, s := range sources(g) {
		src = append(src, strings.ToUpper(s))
	}
	err := l.twirp(ctx, node, "UpdateParticipant", room, map[string]any{"room": room, "identity": identity,
		"permission": map[string]any{"can_subscribe": g.CanSubscribe, "can_publish": g.CanPublish,
			"can_publish_data": false, "can_publish_sources": src}})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Event is a LiveKit webhook, reduced to what Ermine reads.
type Event struct {
	Node  string    // the node whose key signed it
	Kind  EventKind // participant_joined, participant_left, track_published ...
	ID    string    // LiveKit's event id
	At    time.Time // when LiveKit created the event
	Room  string    // the room name: a channel id
	User  string    // the participant identity: a user id
	Track Track     // for track events
}

// Track describes the track of a track event.
type Track struct {
	Type   string // AUDIO, VIDEO or DATA
	Source Source
	Muted  bool
}

// Webhook errors.
var (
	ErrUnsigned     = errors.New("voice: webhook has no Authorization header")
	ErrBadSignature = errors.New("voice: webhook signature does not verify")
)

// Webhook verifies and parses a webhook: the Authorization header is a
// JWT issued by a node's API key, signed with its secret, whose sha256
// claim is the base64 SHA-256 of the body.
func (l *LiveKit) Webhook(authorization string, body []byte) (*Event, error) {
	token := strings.TrimSpace(strings.TrimPrefix(authorization, "Bearer "))
	if token == "" {
		return nil, ErrUnsigned
	}
	var node Node
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		iss, _ := t.Claims.GetIssuer()
		for _, n := range l.nodes {
			if n.APIKey == iss {
				node = n
				return []byte(n.APISecret), nil
			}
		}
		return nil, fmt.Errorf("no node has API key %q", iss)
	}, jwt.WithValidMethods([]string{"HS256", "HS384", "HS512"}), jwt.WithTimeFunc(l.now), jwt.WithLeeway(time.Minute))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	sum := sha256.Sum256(body)
	if subtle.ConstantTimeCompare([]byte(c.Sha256), []byte(base64.StdEncoding.EncodeToString(sum[:]))) != 1 {
		return nil, fmt.Errorf("%w: body checksum differs", ErrBadSignature)
	}
	ev, err := ParseEvent(body)
	if err != nil {
		return nil, err
	}
	ev.Node = node.Name
	return ev, nil
}

// ParseEvent reads a webhook body in LiveKit's protobuf JSON, which
// names fields in lowerCamelCase (or snake_case), enums by name and
// 64-bit integers as strings.
func ParseEvent(body []byte) (*Event, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("voice: webhook body: %w", err)
	}
	var w struct {
		Event       string
		ID          string
		CreatedAt   json.RawMessage
		Room        map[string]json.RawMessage
		Participant map[string]json.RawMessage
		Track       map[string]json.RawMessage
	}
	dec := func(m map[string]json.RawMessage, camel, snake string, into any) {
		v, ok := m[camel]
		if !ok {
			v, ok = m[snake]
		}
		if ok {
			_ = json.Unmarshal(v, into)
		}
	}
	dec(raw, "event", "event", &w.Event)
	dec(raw, "id", "id", &w.ID)
	dec(raw, "createdAt", "created_at", &w.CreatedAt)
	dec(raw, "room", "room", &w.Room)
	dec(raw, "participant", "participant", &w.Participant)
	dec(raw, "track", "track", &w.Track)
	if w.Event == "" {
		return nil, errors.New("voice: webhook without an event")
	}
	ev := &Event{Kind: EventKind(w.Event), ID: w.ID, At: time.Now()}
	if secs, ok := int64Of(w.CreatedAt); ok && secs > 0 {
		ev.At = time.Unix(secs, 0)
	}
	dec(w.Room, "name", "name", &ev.Room)
	dec(w.Participant, "identity", "identity", &ev.User)
	if w.Track != nil {
		ev.Track = Track{Type: "AUDIO", Source: SourceUnknown}
		var typ, src json.RawMessage
		dec(w.Track, "type", "type", &typ)
		dec(w.Track, "source", "source", &src)
		dec(w.Track, "muted", "muted", &ev.Track.Muted)
		ev.Track.Type = enumName(typ, []string{"AUDIO", "VIDEO", "DATA"}, "AUDIO")
		// The enum names are the sources' spelling in upper case.
		ev.Track.Source = Source(strings.ToLower(enumName(src, []string{"UNKNOWN", "CAMERA", "MICROPHONE", "SCREEN_SHARE", "SCREEN_SHARE_AUDIO"}, "UNKNOWN")))
	}
	return ev, nil
}

// int64Of reads a protobuf JSON int64: a string or a number.
func int64Of(v json.RawMessage) (int64, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	var n int64
	return n, json.Unmarshal(v, &n) == nil
}

// enumName reads a protobuf JSON enum: its name or its number.
func enumName(v json.RawMessage, names []string, zero string) string {
	if len(v) == 0 {
		return zero
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return strings.ToUpper(s)
	}
	var n int
	if json.Unmarshal(v, &n) == nil && n >= 0 && n < len(names) {
		return names[n]
	}
	return zero
}
