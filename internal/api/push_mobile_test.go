package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/push"
	"ermine/internal/push/pushtest"
)

// TestMobilePush: the official apps' subscriptions ({endpoint: "fcm" or
// "apn", p256dh: "", auth: <device token>}) are delivered through a
// loopback FCM (OAuth 2.0 token for the service account, data message)
// and a loopback APNs (HTTP/2, ES256 provider token), with the shapes of
// the reference's push daemon; and a UnifiedPush distributor's endpoint
// gets encrypted Web Push like any other.
func TestMobilePush(t *testing.T) {
	t.Parallel()
	keys, err := push.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	web := pushtest.Start(t, keys.Public)
	fcm, apns := pushtest.StartFCM(t), pushtest.StartAPNs(t)
	dir := t.TempDir()
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Push = config.Push{VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private, AllowPrivate: true,
			Subject: "mailto:ops@ermine.test",
			FCM:     config.PushFCM{ServiceAccount: fcm.ServiceAccountFile(dir), URL: fcm.URL()},
			APN: config.PushAPN{KeyFile: apns.KeyFile(dir), KeyID: apns.KeyID, TeamID: apns.TeamID,
				Topic: apns.Topic, URL: apns.URL()}}
	})
	alice, android, iphone, unified := h.NewUser("Alice"), h.NewUser("Droid"), h.NewUser("Fruit"), h.NewUser("Uni")
	subscribe := func(u *apitest.User, body map[string]any) {
		t.Helper()
		if res := h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: u.Token, Body: body}); res.Status != http.StatusNoContent {
			t.Fatalf("subscribe %v = %d %s", body, res.Status, res.Body)
		}
	}
	subscribe(android, map[string]any{"endpoint": "fcm", "p256dh": "", "auth": "fcm-device-token"})
	subscribe(iphone, map[string]any{"endpoint": "apn", "p256dh": "", "auth": "0a1b2c3d"})
	up := web.SubscribeUnifiedPush()
	subscribe(unified, map[string]any{"endpoint": up.Endpoint, "p256dh": up.P256DH, "auth": up.Auth})
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: android.Token,
		Body: map[string]any{"endpoint": "fcm", "p256dh": "", "auth": ""}}), 400, "InvalidProperty")

	// A direct message to each: push.message.
	dm := func(to *apitest.User) chat.ID {
		t.Helper()
		return chat.ID(h.Get("/users/"+string(to.ID)+"/dm", alice.Token).Map(t)["_id"].(string))
	}
	befriend(t, h, alice, android)
	befriend(t, h, alice, iphone)
	befriend(t, h, alice, unified)
	dmAndroid := dm(android)
	sent := sendText(t, h, alice.Token, dmAndroid, "hello droid")
	m := fcm.Wait(5 * time.Second)
	if m.Token != "fcm-device-token" || m.Data["type"] != "push.message" || m.Data["message"] != sent["_id"] ||
		m.Data["body"] != "hello droid" || m.Data["channel"] != string(dmAndroid) || m.Data["author"] != string(alice.ID) ||
		m.Data["author_name"] != "Alice" {
		t.Errorf("FCM push.message = %v", m.Data)
	}
	if _, ok := m.Data["image"]; !ok {
		t.Errorf("FCM push.message without image: %v", m.Data)
	}

	dmPhone := dm(iphone)
	sent = sendText(t, h, alice.Token, dmPhone, "hello fruit")
	a := apns.Wait(5 * time.Second)
	aps, _ := a.Body["aps"].(map[string]any)
	alert, _ := aps["alert"].(map[string]any)
	msg, _ := a.Body["message"].(map[string]any)
	if a.Token != "0a1b2c3d" || alert["title"] != "Alice" || alert["body"] != "hello fruit" || aps["thread-id"] != string(dmPhone) ||
		aps["sound"] != "default" || aps["mutable-content"] != 1.0 || msg["_id"] != sent["_id"] || a.Body["url"] == nil ||
		a.Header.Get("apns-push-type") != "alert" {
		t.Errorf("APNs message = %v %v", a.Body, a.Header)
	}
	if aps["badge"] != 0.0 {
		t.Errorf("APNs message badge = %v, want 0 (no unread mention)", aps["badge"])
	}

	// The badge is the recipient's unread mention count; acknowledging
	// a mention sends the new count alone while some are left unread.
	mention := "<@" + string(iphone.ID) + ">"
	first := sendText(t, h, alice.Token, dmPhone, mention+" one")
	if b := apns.Wait(5 * time.Second).Body["aps"].(map[string]any)["badge"]; b != 1.0 {
		t.Errorf("badge after one mention = %v, want 1", b)
	}
	second := sendText(t, h, alice.Token, dmPhone, mention+" two")
	if b := apns.Wait(5 * time.Second).Body["aps"].(map[string]any)["badge"]; b != 2.0 {
		t.Errorf("badge after two mentions = %v, want 2", b)
	}
	ack := func(message any) {
		t.Helper()
		if res := h.Do(apitest.Request{Method: "PUT", Path: "/channels/" + string(dmPhone) + "/ack/" + message.(string),
			Session: iphone.Token}); res.Status != http.StatusNoContent {
			t.Fatalf("ack = %d %s", res.Status, res.Body)
		}
	}
	ack(first["_id"])
	a = apns.Wait(5 * time.Second)
	if aps, _ := a.Body["aps"].(map[string]any); len(a.Body) != 1 || len(aps) != 1 || aps["badge"] != 1.0 || a.Token != "0a1b2c3d" {
		t.Errorf("badge update after acking one of two mentions = %v", a.Body)
	}
	// As in the reference, no update is sent once no mention is left.
	ack(second["_id"])
	apns.None(300 * time.Millisecond)

	sendText(t, h, alice.Token, dm(unified), "hello unified")
	w := web.Wait(5 * time.Second)
	if !strings.HasPrefix(up.Endpoint, w.Endpoint) || !strings.Contains(string(w.Payload), "hello unified") {
		t.Errorf("UnifiedPush delivery to %s = %s (subscribed %s)", w.Endpoint, w.Payload, up.Endpoint)
	}

	// SuppressNotifications: nothing to any platform.
	res := h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(dmAndroid) + "/messages", Session: alice.Token,
		Body: map[string]any{"content": "quiet", "flags": 1}})
	if res.Status != 200 {
		t.Fatalf("send suppressed = %d %s", res.Status, res.Body)
	}
	fcm.None(300 * time.Millisecond)

	// Friend requests: push.fr.receive to the Android app, then
	// push.fr.accept to the iOS app.
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(android.ID) + "/friend", Session: iphone.Token}); res.Status != 200 {
		t.Fatalf("friend request = %d %s", res.Status, res.Body)
	}
	if m := fcm.Wait(5 * time.Second); m.Data["type"] != "push.fr.receive" || m.Data["id"] != string(iphone.ID) ||
		!strings.HasPrefix(m.Data["username"], "Fruit#") {
		t.Errorf("FCM push.fr.receive = %v", m.Data)
	}
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(iphone.ID) + "/friend", Session: android.Token}); res.Status != 200 {
		t.Fatalf("friend accept = %d %s", res.Status, res.Body)
	}
	a = apns.Wait(5 * time.Second)
	alert, _ = a.Body["aps"].(map[string]any)["alert"].(map[string]any)
	if args, _ := alert["loc-args"].([]any); alert["loc-key"] != "push.fr.accepted" || len(args) != 1 || !strings.HasPrefix(args[0].(string), "Droid#") {
		t.Errorf("APNs friend accept = %v", a.Body)
	}
	if b := a.Body["aps"].(map[string]any)["badge"]; b != 0.0 {
		t.Errorf("APNs friend accept badge = %v, want 0 (every mention read)", b)
	}
}

// TestMobilePushUnconfigured: without credentials the apps' subscriptions
// are kept, and the log says once that they are not delivered.
func TestMobilePushUnconfigured(t *testing.T) {
	t.Parallel()
	var logs lockedLog
	h := apitest.StartWithLog(t, slog.New(slog.NewTextHandler(&logs, nil)), apitest.NoRateLimits)
	u := h.NewUser("Phone")
	for range 2 {
		if res := h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: u.Token,
			Body: map[string]any{"endpoint": "fcm", "p256dh": "", "auth": "token-1"}}); res.Status != http.StatusNoContent {
			t.Fatalf("subscribe = %d %s", res.Status, res.Body)
		}
	}
	se, err := h.Server.Store.FetchSession(context.Background(), u.Session)
	if err != nil || se.Subscription == nil || se.Subscription.Endpoint != "fcm" || se.Subscription.Auth != "token-1" {
		t.Fatalf("stored subscription = %+v %v", se, err)
	}
	if n := strings.Count(logs.String(), "not delivered"); n != 1 {
		t.Errorf("the log says %d times that mobile push is not delivered:\n%s", n, logs.String())
	}
}

// lockedLog collects log output written from several goroutines.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
