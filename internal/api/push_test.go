package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/push"
	"ermine/internal/push/pushtest"
)

// startPush starts a node with Web Push on, delivering to a loopback
// push service that checks the VAPID token and decrypts each payload.
func startPush(t *testing.T) (*apitest.Harness, *pushtest.Service) {
	t.Helper()
	keys, err := push.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	svc := pushtest.Start(t, keys.Public)
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Push = config.Push{VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private, AllowPrivate: true,
			Subject: "mailto:ops@ermine.test"}
	})
	if v := h.Get("/", "").Map(t)["vapid"]; v != keys.Public {
		t.Fatalf("root vapid = %v, want the configured key", v)
	}
	return h, svc
}

func subscribe(t *testing.T, h *apitest.Harness, token string, s pushtest.Subscription) {
	t.Helper()
	res := h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: token, Body: s})
	if res.Status != http.StatusNoContent {
		t.Fatalf("subscribe = %d %s", res.Status, res.Body)
	}
}

func notification(t *testing.T, m pushtest.Message) map[string]any {
	t.Helper()
	var n map[string]any
	if err := json.Unmarshal(m.Payload, &n); err != nil {
		t.Fatalf("payload %q: %v", m.Payload, err)
	}
	return n
}

func sendText(t *testing.T, h *apitest.Harness, token string, channel chat.ID, content string) map[string]any {
	t.Helper()
	res := h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(channel) + "/messages", Session: token,
		Body: map[string]any{"content": content}})
	if res.Status != http.StatusOK {
		t.Fatalf("send = %d %s", res.Status, res.Body)
	}
	return res.Map(t)
}

func TestWebPush(t *testing.T) {
	t.Parallel()
	h, svc := startPush(t)
	alice, bob := h.NewUser("Alice"), h.NewUser("Bob")
	subBob := svc.Subscribe()
	subscribe(t, h, bob.Token, subBob)

	// A friend request reaches Bob, who is not connected.
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(bob.ID) + "/friend", Session: alice.Token}); res.Status != 200 {
		t.Fatalf("friend request = %d %s", res.Status, res.Body)
	}
	m := svc.Wait(5 * time.Second)
	if m.Endpoint != subBob.Endpoint {
		t.Fatalf("pushed to %s", m.Endpoint)
	}
	if n := notification(t, m); n["type"] != "FriendRequest" || n["author"] != "Alice" {
		t.Errorf("friend request notification = %v", n)
	}
	if m.Claims["sub"] != "mailto:ops@ermine.test" {
		t.Errorf("VAPID sub = %v", m.Claims["sub"])
	}
	// Bob accepts: Alice has no subscription, nothing is pushed.
	if res := h.Do(apitest.Request{Method: "PUT", Path: "/users/" + string(alice.ID) + "/friend", Session: bob.Token}); res.Status != 200 {
		t.Fatalf("accept = %d %s", res.Status, res.Body)
	}

	// A direct message is pushed, encrypted for Bob's keys.
	dm := h.Get("/users/"+string(bob.ID)+"/dm", alice.Token).Map(t)
	dmID := chat.ID(dm["_id"].(string))
	sent := sendText(t, h, alice.Token, dmID, "are you there?")
	n := notification(t, svc.Wait(5*time.Second))
	if n["type"] != "Message" || n["body"] != "are you there?" || n["channel"] != string(dmID) || n["message"] != sent["_id"] || n["author"] != "Alice" {
		t.Errorf("message notification = %v", n)
	}

	// Connected, Bob gets the event instead of a push.
	sock := h.Connect(bob.Token)
	// The node counts the connection just after Ready; wait until it does.
	for deadline := time.Now().Add(5 * time.Second); h.Get("/users/"+string(bob.ID), alice.Token).Map(t)["online"] != true; {
		if time.Now().After(deadline) {
			t.Fatal("Bob never shows online")
		}
		time.Sleep(10 * time.Millisecond)
	}
	sendText(t, h, alice.Token, dmID, "hello again")
	sock.Expect("Message")
	svc.None(300 * time.Millisecond)

	// After unsubscribing, nothing is pushed to the session.
	if res := h.Do(apitest.Request{Method: "POST", Path: "/push/unsubscribe", Session: bob.Token}); res.Status != http.StatusNoContent {
		t.Fatalf("unsubscribe = %d %s", res.Status, res.Body)
	}
	se, err := h.Server.Store.FetchSession(context.Background(), bob.Session)
	if err != nil || se.Subscription != nil {
		t.Fatalf("session after unsubscribe = %+v, %v", se, err)
	}
	// Unsubscribing twice is fine.
	if res := h.Do(apitest.Request{Method: "POST", Path: "/push/unsubscribe", Session: bob.Token}); res.Status != http.StatusNoContent {
		t.Fatalf("unsubscribe again = %d %s", res.Status, res.Body)
	}
}

func TestWebPushMentionsAndExpiry(t *testing.T) {
	t.Parallel()
	h, svc := startPush(t)
	owner, dave, erin := h.NewUser("Owner"), h.NewUser("Dave"), h.NewUser("Erin")
	sv := newServer(t, h, owner, dave, erin)
	general := sv.Channels[0]
	subDave, subErin := svc.Subscribe(), svc.Subscribe()
	subscribe(t, h, dave.Token, subDave)
	subscribe(t, h, erin.Token, subErin)

	// In a server channel only the mentioned member is pushed.
	sendText(t, h, owner.Token, general, "nothing for anyone")
	svc.None(300 * time.Millisecond)
	sendText(t, h, owner.Token, general, "look <@"+string(dave.ID)+">")
	m := svc.Wait(5 * time.Second)
	if m.Endpoint != subDave.Endpoint {
		t.Fatalf("mention pushed to %s, want Dave's endpoint", m.Endpoint)
	}
	n := notification(t, m)
	if n["url"] == nil || n["tag"] != string(general) {
		t.Errorf("mention notification = %v", n)
	}
	svc.None(300 * time.Millisecond) // not to Erin

	// Suppressed messages push nothing.
	res := h.Do(apitest.Request{Method: "POST", Path: "/channels/" + string(general) + "/messages", Session: owner.Token,
		Body: map[string]any{"content": "quiet <@" + string(dave.ID) + ">", "flags": 1}})
	if res.Status != 200 {
		t.Fatalf("send suppressed = %d %s", res.Status, res.Body)
	}
	svc.None(300 * time.Millisecond)

	// The push service says Dave's subscription expired: it is removed.
	svc.SetStatus(subDave, http.StatusGone)
	sendText(t, h, owner.Token, general, "again <@"+string(dave.ID)+">")
	if m := svc.Wait(5 * time.Second); m.Status != http.StatusGone {
		t.Fatalf("status = %d", m.Status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		se, err := h.Server.Store.FetchSession(context.Background(), dave.Session)
		if err != nil {
			t.Fatal(err)
		}
		if se.Subscription == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the expired subscription was not removed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sendText(t, h, owner.Token, general, "gone <@"+string(dave.ID)+">")
	svc.None(300 * time.Millisecond)
}

func TestWebPushBadInput(t *testing.T) {
	t.Parallel()
	h, svc := startPush(t)
	u := h.NewUser("Frank")
	good := svc.Subscribe()
	for name, body := range map[string]any{
		"not a url":   map[string]any{"endpoint": "not a url", "p256dh": good.P256DH, "auth": good.Auth},
		"ftp":         map[string]any{"endpoint": "ftp://push.example/x", "p256dh": good.P256DH, "auth": good.Auth},
		"empty":       map[string]any{"endpoint": "", "p256dh": "", "auth": ""},
		"missing key": map[string]any{"endpoint": good.Endpoint},
		"bad key":     map[string]any{"endpoint": good.Endpoint, "p256dh": "AAAA", "auth": good.Auth},
		"bad auth":    map[string]any{"endpoint": good.Endpoint, "p256dh": good.P256DH, "auth": "AAAA"},
	} {
		t.Run(name, func(t *testing.T) {
			res := h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: u.Token, Body: body})
			if res.Status != http.StatusBadRequest {
				t.Errorf("= %d %s", res.Status, res.Body)
			}
		})
	}
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Body: good}), 401, "NotAuthenticated")
	owner := h.NewUser("Owner")
	_, botToken := newBotUser(t, h, owner, "pushbot")
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Bot: botToken, Body: good}), 400, "IsBot")
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/push/unsubscribe", Bot: botToken}), 400, "IsBot")

	// A mobile subscription needs its device token (TestMobilePush covers
	// the rest).
	wantError(t, h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: u.Token,
		Body: map[string]any{"endpoint": "apn", "p256dh": "", "auth": ""}}), 400, "InvalidProperty")

	// Without [push], subscribing says the feature is off.
	off := apitest.Start(t, apitest.NoRateLimits)
	v := off.NewUser("Gina")
	wantError(t, off.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: v.Token, Body: good}), 400, "FeatureDisabled")
}

// TestWebPushCall: a call started in a direct message is pushed to the
// other side when they are away.
func TestWebPushCall(t *testing.T) {
	keys, err := push.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	svc := pushtest.Start(t, keys.Public)
	lk := newFakeLiveKit(t)
	h := apitest.Start(t, lk.option(), func(c *config.Config) {
		c.Push = config.Push{VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private, AllowPrivate: true,
			Subject: "mailto:ops@ermine.test"}
	})
	alice, bob := h.NewUser("Alice"), h.NewUser("Bob")
	befriend(t, h, alice, bob)
	sub := svc.Subscribe()
	subscribe(t, h, bob.Token, sub)
	dm := h.Get("/users/"+string(bob.ID)+"/dm", alice.Token).Map(t)["_id"].(string)
	if res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + dm + "/join_call", Session: alice.Token,
		Body: map[string]any{}}); res.Status != http.StatusOK {
		t.Fatalf("join_call = %d %s", res.Status, res.Body)
	}
	if code := webhook(t, h, fakeSecret, joined(dm, alice.ID)); code != http.StatusNoContent && code != http.StatusOK {
		t.Fatalf("webhook = %d", code)
	}
	m := svc.Wait(5 * time.Second)
	if m.Endpoint != sub.Endpoint {
		t.Fatalf("pushed to %s", m.Endpoint)
	}
	if n := notification(t, m); n["type"] != "Call" || n["author"] != "Alice" || n["channel"] != dm {
		t.Errorf("call notification = %v", n)
	}
	// The caller is not told of their own call.
	svc.None(300 * time.Millisecond)
}

// TestWebPushProductionEndpoints runs the production setting (no
// allow_private) through the whole server: subscribing refuses every
// endpoint the outbound rule (internal/egress) forbids, the same rule
// link previews follow, and accepts a public https one.
func TestWebPushProductionEndpoints(t *testing.T) {
	t.Parallel()
	keys, err := push.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	h := apitest.Start(t, apitest.NoRateLimits, func(c *config.Config) {
		c.Push = config.Push{VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private, Subject: "mailto:ops@ermine.test"}
	})
	u := h.NewUser("Hana")
	browser, err := push.GenerateKeys() // any P-256 point will do as the browser's key
	if err != nil {
		t.Fatal(err)
	}
	sub := func(endpoint string) *apitest.Response {
		return h.Do(apitest.Request{Method: "POST", Path: "/push/subscribe", Session: u.Token,
			Body: map[string]any{"endpoint": endpoint, "p256dh": browser.Public, "auth": "AAAAAAAAAAAAAAAAAAAAAA"}})
	}
	for _, host := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "100.64.0.1", "[64:ff9b::7f00:1]",
		"[2002:7f00:1::1]", "0.1.2.3", "198.18.0.1", "240.0.0.1", "[fec0::1]", "[::ffff:127.0.0.1]", "localhost",
		"intranet", "push.localhost"} {
		t.Run(host, func(t *testing.T) {
			wantError(t, sub("https://"+host+"/push/abc"), 400, "InvalidProperty")
		})
	}
	wantError(t, sub("http://push.example.com/abc"), 400, "InvalidProperty")
	if res := sub("https://push.example.com/abc"); res.Status != http.StatusNoContent {
		t.Fatalf("a public https endpoint = %d %s", res.Status, res.Body)
	}
}
