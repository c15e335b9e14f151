package push_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/push"
	"ermine/internal/push/pushtest"
)

func payload(t *testing.T, n chat.MobilePush) []byte {
	t.Helper()
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fcmSender(t *testing.T) (*push.FCM, *pushtest.FCM) {
	t.Helper()
	stand := pushtest.StartFCM(t)
	sa, err := push.ReadServiceAccount(stand.ServiceAccountFile(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	f, err := push.NewFCM(sa, stand.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f, stand
}

// TestFCMShapes sends each kind of notification through the stand-in,
// which checks the OAuth token and that data holds only strings.
func TestFCMShapes(t *testing.T) {
	f, stand := fcmSender(t)
	sub := push.Subscription{Endpoint: chat.PushEndpointFCM, Auth: "device"}
	ctx := context.Background()
	cases := []struct {
		n    chat.MobilePush
		want map[string]string
	}{
		{chat.MobilePush{Type: chat.PushMessage, Message: &chat.Message{ID: "M1"}, ChannelID: "C1", AuthorID: "U1",
			AuthorName: "Alice", Icon: "https://files/avatars/a", Body: "hi"},
			map[string]string{"type": "push.message", "message": "M1", "channel": "C1", "author": "U1",
				"author_name": "Alice", "image": "https://files/avatars/a", "body": "hi"}},
		{chat.MobilePush{Type: chat.PushFRReceive, UserID: "U2", Username: "bob#1234"},
			map[string]string{"type": "push.fr.receive", "id": "U2", "username": "bob#1234"}},
		{chat.MobilePush{Type: chat.PushFRAccept, UserID: "U3", Username: "Carol"},
			map[string]string{"type": "push.fr.accept", "id": "U3", "username": "Carol"}},
		{chat.MobilePush{Type: chat.PushDMCall, InitiatorID: "U4", ChannelID: "C2", StartedAt: "2026-11-26T03:00:00Z", RingSeconds: 10},
			map[string]string{"type": "push.dm.call", "initiator_id": "U4", "channel_id": "C2",
				"started_at": "2026-11-26T03:00:00Z", "ended": "false", "duration": "10"}},
		{chat.MobilePush{Type: chat.PushGeneric, Title: "Hello", Body: "there"},
			map[string]string{"type": "push.generic", "title": "Hello", "body": "there"}},
	}
	for _, c := range cases {
		if err := f.Send(ctx, sub, payload(t, c.n)); err != nil {
			t.Fatalf("send %s: %v", c.n.Type, err)
		}
		got := stand.Wait(5 * time.Second)
		if got.Token != "device" || len(got.Data) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.n.Type, got.Data, c.want)
		}
		for k, v := range c.want {
			if got.Data[k] != v {
				t.Errorf("%s: data[%s] = %q, want %q", c.n.Type, k, got.Data[k], v)
			}
		}
	}
	// An unregistered token is gone for good.
	stand.SetStatus(http.StatusNotFound)
	if err := f.Send(ctx, sub, payload(t, cases[0].n)); !errors.Is(err, push.ErrGone) {
		t.Errorf("unregistered token: %v, want ErrGone", err)
	}
}

// TestFCMWrongKey: a service account whose key the token endpoint does
// not know gets no token, and the notification is refused for good.
func TestFCMWrongKey(t *testing.T) {
	_, stand := fcmSender(t)
	_, other := fcmSender(t)
	sa, err := push.ReadServiceAccount(other.ServiceAccountFile(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	good, err := push.ReadServiceAccount(stand.ServiceAccountFile(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	sa.TokenURI, sa.ClientEmail = good.TokenURI, good.ClientEmail // the right account, signed with another key
	f, err := push.NewFCM(sa, stand.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	stand.Silence(t)
	err = f.Send(context.Background(), push.Subscription{Endpoint: "fcm", Auth: "x"}, payload(t, chat.MobilePush{Type: chat.PushGeneric}))
	if !errors.Is(err, push.ErrRejected) {
		t.Errorf("send with a wrong key: %v, want ErrRejected", err)
	}
}

func apnsSender(t *testing.T) (*push.APNs, *pushtest.APNs) {
	t.Helper()
	stand := pushtest.StartAPNs(t)
	key, err := os.ReadFile(stand.KeyFile(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := push.NewAPNs(push.APNsOptions{Key: key, KeyID: stand.KeyID, TeamID: stand.TeamID, Topic: stand.Topic, URL: stand.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return a, stand
}

// TestAPNsShapes sends each kind through the HTTP/2 stand-in, which checks
// the provider token and the topic.
func TestAPNsShapes(t *testing.T) {
	a, stand := apnsSender(t)
	ctx := context.Background()
	sub := push.Subscription{Endpoint: chat.PushEndpointAPN, Auth: "abcdef"}
	send := func(n chat.MobilePush) map[string]any {
		t.Helper()
		if err := a.Send(ctx, sub, payload(t, n)); err != nil {
			t.Fatalf("send %s: %v", n.Type, err)
		}
		m := stand.Wait(5 * time.Second)
		if m.Token != "abcdef" || m.Header.Get("apns-priority") != "10" {
			t.Errorf("%s to %s, headers %v", n.Type, m.Token, m.Header)
		}
		return m.Body
	}
	aps := func(b map[string]any) map[string]any { return b["aps"].(map[string]any) }
	b := send(chat.MobilePush{Type: chat.PushMessage, Message: &chat.Message{ID: "M1"}, ChannelID: "C1", ChannelName: "general",
		ChannelType: "TextChannel", AuthorName: "Alice", Body: "hi", URL: "https://app/x"})
	if al := aps(b)["alert"].(map[string]any); al["title"] != "Alice in #general" || al["body"] != "hi" || aps(b)["thread-id"] != "C1" ||
		b["channel_name"] != "general" || b["url"] != "https://app/x" || b["message"].(map[string]any)["_id"] != "M1" {
		t.Errorf("message = %v", b)
	}
	if _, ok := aps(b)["badge"]; ok {
		t.Errorf("message without a count has a badge: %v", b)
	}
	three, none := 3, 0
	b = send(chat.MobilePush{Type: chat.PushMessage, ChannelID: "C1", ChannelType: "TextChannel", AuthorName: "Alice", Body: "hi", Badge: &three})
	if aps(b)["badge"] != 3.0 || aps(b)["alert"] == nil {
		t.Errorf("message with a badge = %v", b)
	}
	b = send(chat.MobilePush{Type: chat.PushFRAccept, Username: "Dan", Badge: &none})
	if aps(b)["badge"] != 0.0 {
		t.Errorf("friend accept with a zero badge = %v", b)
	}
	// A badge update carries the count alone.
	b = send(chat.MobilePush{Type: chat.PushBadge, Badge: &three})
	if len(b) != 1 || len(aps(b)) != 1 || aps(b)["badge"] != 3.0 {
		t.Errorf("badge update = %v", b)
	}
	b = send(chat.MobilePush{Type: chat.PushMessage, ChannelID: "G1", ChannelName: "pals", ChannelType: "Group", AuthorName: "Bob", Body: "yo"})
	if al := aps(b)["alert"].(map[string]any); al["title"] != "Bob, #pals" {
		t.Errorf("group message = %v", b)
	}
	b = send(chat.MobilePush{Type: chat.PushFRReceive, Username: "Carol"})
	if al := aps(b)["alert"].(map[string]any); al["loc-key"] != "push.fr.received" || al["loc-args"].([]any)[0] != "Carol" {
		t.Errorf("friend request = %v", b)
	}
	b = send(chat.MobilePush{Type: chat.PushDMCall, InitiatorID: "U1", ChannelID: "D1", StartedAt: "2026-11-26T03:00:00Z"})
	if aps(b)["alert"] != nil || b["initiator_id"] != "U1" || b["channel_id"] != "D1" || b["ended"] != false {
		t.Errorf("call = %v", b)
	}
	b = send(chat.MobilePush{Type: chat.PushGeneric, Title: "T", Body: "B"})
	if al := aps(b)["alert"].(map[string]any); al["title"] != "T" || al["body"] != "B" {
		t.Errorf("generic = %v", b)
	}
	// Apple says the device token is no longer valid: gone.
	if err := a.Send(ctx, push.Subscription{Endpoint: "apn", Auth: "unregistered"}, payload(t, chat.MobilePush{Type: chat.PushGeneric})); !errors.Is(err, push.ErrGone) {
		t.Errorf("unregistered: %v, want ErrGone", err)
	}
}

// TestAPNsWrongKey: a provider token signed by another key is refused.
func TestAPNsWrongKey(t *testing.T) {
	_, stand := apnsSender(t)
	other := pushtest.StartAPNs(t)
	key, err := os.ReadFile(other.KeyFile(filepath.Join(t.TempDir())))
	if err != nil {
		t.Fatal(err)
	}
	a, err := push.NewAPNs(push.APNsOptions{Key: key, KeyID: stand.KeyID, TeamID: stand.TeamID, Topic: stand.Topic, URL: stand.URL()})
	if err != nil {
		t.Fatal(err)
	}
	stand.Silence(t)
	if err := a.Send(context.Background(), push.Subscription{Endpoint: "apn", Auth: "abc"}, payload(t, chat.MobilePush{Type: chat.PushGeneric})); !errors.Is(err, push.ErrRejected) {
		t.Errorf("wrong key: %v, want ErrRejected", err)
	}
}
