package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ermine/internal/api"
	"ermine/internal/apitest"
	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
	"ermine/internal/perm"
)

const (
	fakeKey    = "APIfake"
	fakeSecret = "fake-secret-that-is-long-enough-for-hs256"
)

// fakeLiveKit is LiveKit's Twirp room API: it checks each call's bearer
// token and records the calls.
type fakeLiveKit struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	calls []twirpCall
	fail  bool
}

type twirpCall struct {
	Method string
	Body   map[string]any
}

func newFakeLiveKit(t *testing.T) *fakeLiveKit {
	f := &fakeLiveKit{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, ok := strings.CutPrefix(r.URL.Path, "/twirp/livekit.RoomService/")
		if !ok || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return []byte(fakeSecret), nil },
			jwt.WithIssuer(fakeKey), jwt.WithValidMethods([]string{"HS256"})); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":"unauthenticated","msg":"bad token"}`)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.calls = append(f.calls, twirpCall{method, body})
		fail := f.fail
		f.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"code":"unavailable","msg":"down"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// take returns and forgets the calls of method so far.
func (f *fakeLiveKit) take(method string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	rest := f.calls[:0]
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c.Body)
		} else {
			rest = append(rest, c)
		}
	}
	f.calls = rest
	return out
}

func (f *fakeLiveKit) option() apitest.Option {
	return func(c *config.Config) {
		c.Limits.RateLimits = false
		c.Voice.Enabled = true
		c.Voice.Nodes = []config.VoiceNode{
			{Name: "eu", Lat: 50, Lon: 8, URL: f.srv.URL, PublicURL: "ws://eu.voice.test", APIKey: fakeKey, APISecret: fakeSecret},
			{Name: "us", Lat: 40, Lon: -75, URL: f.srv.URL, PublicURL: "ws://us.voice.test", APIKey: fakeKey, APISecret: fakeSecret},
		}
	}
}

// webhook posts a LiveKit webhook signed as LiveKit signs it.
func webhook(t *testing.T, h *apitest.Harness, secret string, body map[string]any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	sum := sha256.Sum256(raw)
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": fakeKey,
		"exp": time.Now().Add(5 * time.Minute).Unix(), "sha256": base64.StdEncoding.EncodeToString(sum[:])}).
		SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, h.URL+api.VoiceWebhookPath, bytes.NewReader(raw))
	req.Header.Set("Authorization", tok)
	req.Header.Set("Content-Type", "application/webhook+json")
	res, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func joined(room string, user chat.ID) map[string]any {
	return map[string]any{"event": "participant_joined", "id": "EV_" + string(chat.NewID()),
		"createdAt": "1700000000", "room": map[string]any{"name": room},
		"participant": map[string]any{"identity": string(user)}}
}

func left(room string, user chat.ID) map[string]any {
	ev := joined(room, user)
	ev["event"] = "participant_left"
	return ev
}

func track(kind, room string, user chat.ID, source string, typ string) map[string]any {
	ev := joined(room, user)
	ev["event"] = kind
	tr := map[string]any{"sid": "TR_x", "source": source}
	if typ != "" {
		tr["type"] = typ
	}
	ev["track"] = tr
	return ev
}

// tokenClaims decodes a LiveKit join token after checking its signature.
func tokenClaims(t *testing.T, tok string) jwt.MapClaims {
	t.Helper()
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return []byte(fakeSecret), nil }); err != nil {
		t.Fatalf("join token: %v", err)
	}
	return claims
}

// voiceChannel creates a voice channel in sid as u.
func (e *env) voiceChannel(t *testing.T, u *apitest.User, sid string, max int) string {
	t.Helper()
	body := map[string]any{"name": "Voice", "type": "Voice"}
	if max > 0 {
		body["voice"] = map[string]any{"max_users": max}
	}
	res := e.call(t, u, http.MethodPost, "/servers/"+sid+"/channels", body, http.StatusOK)
	return res.Map(t)["_id"].(string)
}

func TestJoinCallWithoutVoice(t *testing.T) {
	e := newEnv(t)
	owner := e.h.NewUser("quiet")
	sid, _ := e.server(t, owner, "Quiet")
	ch := e.voiceChannel(t, owner, sid, 0)
	e.fail(t, owner, http.MethodPost, "/channels/"+ch+"/join_call", map[string]any{}, http.StatusBadRequest, "LiveKitUnavailable")
	var root map[string]any
	e.call(t, nil, http.MethodGet, "/", nil, http.StatusOK).JSON(t, &root)
	lk := root["features"].(map[string]any)["livekit"].(map[string]any)
	if lk["enabled"] != false || len(lk["nodes"].([]any)) != 0 {
		t.Errorf("features.livekit = %v", lk)
	}
	res := e.h.Do(apitest.Request{Method: http.MethodPost, Path: api.VoiceWebhookPath, Body: map[string]any{}})
	if res.Status != http.StatusBadRequest {
		t.Errorf("webhook without voice = %d %s", res.Status, res.Body)
	}
}

func TestJoinCall(t *testing.T) {
	lk := newFakeLiveKit(t)
	e := &env{h: apitest.Start(t, lk.option())}
	h := e.h
	owner, member, muted, other := h.NewUser("host"), h.NewUser("guest"), h.NewUser("mute"), h.NewUser("far")
	sid, text := e.server(t, owner, "Hall")
	e.join(t, sid, member)
	vc := e.voiceChannel(t, owner, sid, 2)
	path := "/channels/" + vc + "/join_call"

	var root map[string]any
	e.call(t, nil, http.MethodGet, "/", nil, http.StatusOK).JSON(t, &root)
	feat := root["features"].(map[string]any)["livekit"].(map[string]any)
	nodes := feat["nodes"].([]any)
	if feat["enabled"] != true || len(nodes) != 2 || nodes[0].(map[string]any)["name"] != "eu" ||
		nodes[0].(map[string]any)["public_url"] != "ws://eu.voice.test" || nodes[0].(map[string]any)["lat"] != 50.0 {
		t.Errorf("features.livekit = %v", feat)
	}

	t.Run("errors", func(t *testing.T) {
		e.fail(t, owner, http.MethodPost, "/channels/"+text+"/join_call", map[string]any{}, http.StatusBadRequest, "NotAVoiceChannel")
		e.fail(t, other, http.MethodPost, path, map[string]any{}, http.StatusNotFound, "NotFound")
		e.fail(t, owner, http.MethodPost, path, map[string]any{"node": "mars"}, http.StatusBadRequest, "UnknownNode")
		// Saved messages are no call.
		saved := e.call(t, owner, http.MethodGet, "/users/"+string(owner.ID)+"/dm", nil, http.StatusOK).Map(t)["_id"].(string)
		e.fail(t, owner, http.MethodPost, "/channels/"+saved+"/join_call", map[string]any{}, http.StatusBadRequest, "NotAVoiceChannel")
		// Connect denied on the channel.
		e.call(t, owner, http.MethodPut, "/channels/"+vc+"/permissions/default",
			override(0, uint64(perm.Connect)), http.StatusOK)
		e.fail(t, member, http.MethodPost, path, map[string]any{}, http.StatusForbidden, "MissingPermission", "Connect")
		e.call(t, owner, http.MethodPut, "/channels/"+vc+"/permissions/default", override(0, 0), http.StatusOK)
		// A bot may not force others off.
		bot := e.bot(t, owner, "voicebot")
		e.join(t, sid, bot)
		res := e.asBot(t, bot.Token, http.MethodPost, path, map[string]any{"force_disconnect": true})
		wantError(t, res, http.StatusBadRequest, "IsBot")
		// LiveKit down.
		lk.mu.Lock()
		lk.fail = true
		lk.mu.Unlock()
		e.fail(t, member, http.MethodPost, path, map[string]any{}, http.StatusBadRequest, "LiveKitUnavailable")
		lk.mu.Lock()
		lk.fail = false
		lk.mu.Unlock()
		lk.take("CreateRoom")
	})

	ev := h.Listen(event.Of(chat.ID(vc)), event.Private(member.ID), event.Private(owner.ID))
	var tok chat.VoiceToken
	t.Run("token and room", func(t *testing.T) {
		// Speak allowed, Video and Listen from the defaults.
		e.call(t, member, http.MethodPost, path, map[string]any{"node": "us"}, http.StatusOK).JSON(t, &tok)
		if tok.URL != "ws://us.voice.test" {
			t.Errorf("url = %q", tok.URL)
		}
		c := tokenClaims(t, tok.Token)
		video := c["video"].(map[string]any)
		exp, _ := c.GetExpirationTime()
		if c["sub"] != string(member.ID) || c["iss"] != fakeKey || video["room"] != vc || video["roomJoin"] != true ||
			c["name"] != member.Username+"#"+member.Discriminator || time.Until(exp.Time) > 15*time.Second {
			t.Errorf("claims = %v", c)
		}
		if video["canPublish"] != true || video["canSubscribe"] != true || video["canPublishData"] != false {
			t.Errorf("grants = %v", video)
		}
		src := video["canPublishSources"].([]any)
		if !slices.Contains(src, any("microphone")) || !slices.Contains(src, any("camera")) || !slices.Contains(src, any("screen_share")) {
			t.Errorf("sources = %v", src)
		}
		rooms := lk.take("CreateRoom")
		if len(rooms) != 1 || rooms[0]["name"] != vc || rooms[0]["metadata"] != `{"server":"`+sid+`"}` {
			t.Errorf("CreateRoom = %v", rooms)
		}
	})

	t.Run("grants follow permissions", func(t *testing.T) {
		e.join(t, sid, muted)
		e.call(t, owner, http.MethodPut, "/channels/"+vc+"/permissions/default",
			override(0, uint64(perm.Speak|perm.Video|perm.Listen)), http.StatusOK)
		var mt chat.VoiceToken
		e.call(t, muted, http.MethodPost, path, map[string]any{}, http.StatusOK).JSON(t, &mt)
		video := tokenClaims(t, mt.Token)["video"].(map[string]any)
		if video["canPublish"] != false || video["canSubscribe"] != false {
			t.Errorf("grants without Speak, Video, Listen = %v", video)
		}
		if mt.URL != "ws://us.voice.test" {
			t.Errorf("second joiner sent to %q, want the call's node", mt.URL)
		}
		e.call(t, owner, http.MethodPut, "/channels/"+vc+"/permissions/default", override(0, 0), http.StatusOK)
	})

	t.Run("webhooks", func(t *testing.T) {
		if res := webhook(t, h, "wrong-secret-wrong-secret-wrong-secret", joined(vc, member.ID)); res != http.StatusUnauthorized {
			t.Fatalf("badly signed webhook = %d", res)
		}
		if res := webhook(t, h, fakeSecret, joined(vc, member.ID)); res != http.StatusNoContent {
			t.Fatalf("webhook = %d", res)
		}
		j := ev.Wait(chat.EvVoiceChannelJoin, nil)
		st := j.Body["state"].(map[string]any)
		if j.Body["id"] != vc || st["id"] != string(member.ID) || st["is_receiving"] != true || st["is_publishing"] != false {
			t.Errorf("VoiceChannelJoin = %s", j.Raw)
		}
		msg := ev.Wait(chat.EvMessage, nil)
		sys := msg.Body["system"].(map[string]any)
		if sys["type"] != "call_started" || sys["by"] != string(member.ID) {
			t.Errorf("call_started = %s", msg.Raw)
		}
		webhook(t, h, fakeSecret, track("track_published", vc, member.ID, "MICROPHONE", ""))
		u := ev.Wait(chat.EvUserVoiceStateUpdate, nil)
		if u.Body["id"] != string(member.ID) || u.Body["channel_id"] != vc || u.Body["data"].(map[string]any)["is_publishing"] != true {
			t.Errorf("UserVoiceStateUpdate = %s", u.Raw)
		}
		webhook(t, h, fakeSecret, track("track_published", vc, member.ID, "CAMERA", "VIDEO"))
		if u := ev.Wait(chat.EvUserVoiceStateUpdate, nil); u.Body["data"].(map[string]any)["camera"] != true {
			t.Errorf("camera = %s", u.Raw)
		}
		webhook(t, h, fakeSecret, track("track_muted", vc, member.ID, "MICROPHONE", ""))
		if u := ev.Wait(chat.EvUserVoiceStateUpdate, nil); u.Body["data"].(map[string]any)["is_publishing"] != false {
			t.Errorf("muted = %s", u.Raw)
		}
		webhook(t, h, fakeSecret, track("track_unmuted", vc, member.ID, "SCREEN_SHARE", "VIDEO"))
		if u := ev.Wait(chat.EvUserVoiceStateUpdate, nil); u.Body["data"].(map[string]any)["screensharing"] != true {
			t.Errorf("screen share = %s", u.Raw)
		}
		// A data track is not ours: the participant is sent away.
		webhook(t, h, fakeSecret, track("track_published", vc, member.ID, "UNKNOWN", "DATA"))
		if rm := lk.take("RemoveParticipant"); len(rm) != 1 || rm[0]["identity"] != string(member.ID) {
			t.Errorf("RemoveParticipant after a data track = %v", rm)
		}
		// The state is in the store: Ready sees it.
		ready := readyVoice(t, e, member)
		if len(ready) != 1 || ready[0].ID != chat.ID(vc) || len(ready[0].Participants) != 1 ||
			!ready[0].Participants[0].Camera {
			t.Errorf("Ready voice_states = %+v", ready)
		}
	})

	t.Run("already connected and full", func(t *testing.T) {
		e.fail(t, member, http.MethodPost, path, map[string]any{}, http.StatusBadRequest, "AlreadyConnected")
		webhook(t, h, fakeSecret, joined(vc, muted.ID))
		ev.Wait(chat.EvVoiceChannelJoin, nil)
		third := h.NewUser("third")
		e.join(t, sid, third)
		e.fail(t, third, http.MethodPost, path, map[string]any{}, http.StatusBadRequest, "CannotJoinCall")
		// ManageChannel passes a full channel.
		e.call(t, owner, http.MethodPost, path, map[string]any{}, http.StatusOK)
		webhook(t, h, fakeSecret, left(vc, muted.ID))
		if l := ev.Wait(chat.EvVoiceChannelLeave, nil); l.Body["user"] != string(muted.ID) || l.Body["id"] != vc {
			t.Errorf("VoiceChannelLeave = %s", l.Raw)
		}
	})

	vc2 := e.voiceChannel(t, owner, sid, 0)
	ev2 := h.Listen(event.Of(chat.ID(vc2)))
	t.Run("moderation", func(t *testing.T) {
		mpath := "/servers/" + sid + "/members/" + string(member.ID)
		// A member may not move or mute the owner, nor anyone without the permission.
		e.fail(t, member, http.MethodPatch, "/servers/"+sid+"/members/"+string(owner.ID),
			map[string]any{"can_publish": false}, http.StatusForbidden, "MissingPermission", "MuteMembers")
		e.fail(t, owner, http.MethodPatch, "/servers/"+sid+"/members/"+string(muted.ID),
			map[string]any{"voice_channel": vc2}, http.StatusBadRequest, "NotConnected")
		e.fail(t, owner, http.MethodPatch, mpath, map[string]any{"voice_channel": text}, http.StatusBadRequest, "NotAVoiceChannel")

		// Server mute: LiveKit gets the new grants, clients the state.
		lk.take("UpdateParticipant")
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"can_publish": false, "can_receive": false}, http.StatusOK)
		ups := lk.take("UpdateParticipant")
		if len(ups) == 0 {
			t.Fatalf("no UpdateParticipant after a server mute")
		}
		p := ups[len(ups)-1]["permission"].(map[string]any)
		if ups[len(ups)-1]["identity"] != string(member.ID) || p["can_publish"] != false || p["can_subscribe"] != false {
			t.Errorf("UpdateParticipant = %v", ups)
		}
		u := ev.Wait(chat.EvUserVoiceStateUpdate, nil)
		if d := u.Body["data"].(map[string]any); d["is_receiving"] != false || d["camera"] != false {
			t.Errorf("state after mute = %s", u.Raw)
		}
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"remove": []string{"CanPublish", "CanReceive"}}, http.StatusOK)
		lk.take("UpdateParticipant")

		// A role change re-syncs too.
		e.call(t, owner, http.MethodPut, "/servers/"+sid+"/permissions/default",
			map[string]any{"permissions": uint64(perm.DefaultServer &^ perm.Listen)}, http.StatusOK)
		if ups := lk.take("UpdateParticipant"); len(ups) == 0 {
			t.Errorf("no UpdateParticipant after a permission change")
		}
		e.call(t, owner, http.MethodPut, "/servers/"+sid+"/permissions/default",
			map[string]any{"permissions": uint64(perm.DefaultServer)}, http.StatusOK)
		// So do a role given to the member, an edit of its permissions and
		// its deletion.
		role := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/roles", map[string]any{"name": "quiet"},
			http.StatusOK).Map(t)["id"].(string)
		lk.take("UpdateParticipant")
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"roles": []string{role}}, http.StatusOK)
		if ups := lk.take("UpdateParticipant"); len(ups) == 0 {
			t.Errorf("no UpdateParticipant after a role was given")
		}
		e.call(t, owner, http.MethodPut, "/servers/"+sid+"/permissions/"+role,
			map[string]any{"permissions": map[string]any{"allow": 0, "deny": uint64(perm.Speak)}}, http.StatusOK)
		if ups := lk.take("UpdateParticipant"); len(ups) == 0 {
			t.Errorf("no UpdateParticipant after a role's permissions changed")
		} else if p := ups[len(ups)-1]["permission"].(map[string]any); slices.Contains(p["can_publish_sources"].([]any), any("MICROPHONE")) {
			t.Errorf("microphone still granted with Speak denied: %v", p)
		}
		e.call(t, owner, http.MethodDelete, "/servers/"+sid+"/roles/"+role, nil, http.StatusNoContent)
		if ups := lk.take("UpdateParticipant"); len(ups) == 0 {
			t.Errorf("no UpdateParticipant after the role was deleted")
		}
		// And a change of the roles' ranks.
		r1 := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/roles", map[string]any{"name": "one"},
			http.StatusOK).Map(t)["id"].(string)
		r2 := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/roles", map[string]any{"name": "two"},
			http.StatusOK).Map(t)["id"].(string)
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"roles": []string{r1, r2}}, http.StatusOK)
		lk.take("UpdateParticipant")
		e.call(t, owner, http.MethodPatch, "/servers/"+sid+"/roles/ranks", map[string]any{"ranks": []string{r2, r1}}, http.StatusOK)
		if ups := lk.take("UpdateParticipant"); len(ups) == 0 {
			t.Errorf("no UpdateParticipant after a rank change")
		}
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"remove": []string{"Roles"}}, http.StatusOK)
		lk.take("UpdateParticipant")
		// And an edit of the channel's own permissions.
		e.call(t, owner, http.MethodPut, "/channels/"+vc+"/permissions/default",
			map[string]any{"permissions": map[string]any{"allow": 0, "deny": uint64(perm.Speak)}}, http.StatusOK)
		if ups := lk.take("UpdateParticipant"); len(ups) == 0 {
			t.Errorf("no UpdateParticipant after a channel permission change")
		}
		e.call(t, owner, http.MethodPut, "/channels/"+vc+"/permissions/default",
			map[string]any{"permissions": map[string]any{"allow": 0, "deny": 0}}, http.StatusOK)
		lk.take("UpdateParticipant")

		// Move: a new token on the member's private topic, then the move.
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"voice_channel": vc2}, http.StatusOK)
		mv := ev.Wait(chat.EvUserMoveVoiceChannel, nil)
		if mv.Topic != event.Private(member.ID) || mv.Body["from"] != vc || mv.Body["to"] != vc2 || mv.Body["node"] != "us" {
			t.Errorf("UserMoveVoiceChannel = %s", mv.Raw)
		}
		if v := tokenClaims(t, mv.Body["token"].(string))["video"].(map[string]any); v["room"] != vc2 {
			t.Errorf("move token room = %v", v["room"])
		}
		webhook(t, h, fakeSecret, left(vc, member.ID))
		webhook(t, h, fakeSecret, joined(vc2, member.ID))
		m := ev2.Wait(chat.EvVoiceChannelMove, nil)
		if m.Body["user"] != string(member.ID) || m.Body["from"] != vc || m.Body["to"] != vc2 {
			t.Errorf("VoiceChannelMove = %s", m.Raw)
		}
		// The old call is over: call_started got its finished_at.
		upd := ev.Wait(chat.EvMessageUpdate, nil)
		if sys := upd.Body["data"].(map[string]any)["system"].(map[string]any); sys["finished_at"] == nil {
			t.Errorf("call_started not closed: %s", upd.Raw)
		}

		// Kick from voice.
		e.call(t, owner, http.MethodPatch, mpath, map[string]any{"remove": []string{"VoiceChannel"}}, http.StatusOK)
		if l := ev2.Wait(chat.EvVoiceChannelLeave, nil); l.Body["user"] != string(member.ID) {
			t.Errorf("leave after remove VoiceChannel = %s", l.Raw)
		}
		if rm := lk.take("RemoveParticipant"); len(rm) == 0 || rm[len(rm)-1]["room"] != vc2 {
			t.Errorf("RemoveParticipant = %v", rm)
		}
	})

	t.Run("kick, ban and channel deletion disconnect", func(t *testing.T) {
		webhook(t, h, fakeSecret, joined(vc2, member.ID))
		ev2.Wait(chat.EvVoiceChannelJoin, nil)
		e.call(t, owner, http.MethodDelete, "/servers/"+sid+"/members/"+string(member.ID), nil, http.StatusNoContent)
		ev2.Wait(chat.EvVoiceChannelLeave, func(x apitest.Event) bool { return x.Body["user"] == string(member.ID) })

		webhook(t, h, fakeSecret, joined(vc2, muted.ID))
		ev2.Wait(chat.EvVoiceChannelJoin, nil)
		e.call(t, owner, http.MethodPut, "/servers/"+sid+"/bans/"+string(muted.ID), map[string]any{}, http.StatusOK)
		ev2.Wait(chat.EvVoiceChannelLeave, func(x apitest.Event) bool { return x.Body["user"] == string(muted.ID) })

		webhook(t, h, fakeSecret, joined(vc2, owner.ID))
		ev2.Wait(chat.EvVoiceChannelJoin, nil)
		lk.take("RemoveParticipant")
		e.call(t, owner, http.MethodDelete, "/channels/"+vc2, nil, http.StatusNoContent)
		if rm := lk.take("RemoveParticipant"); len(rm) != 1 || rm[0]["identity"] != string(owner.ID) {
			t.Errorf("RemoveParticipant after channel delete = %v", rm)
		}
		ps, err := h.Server.Store.FetchVoiceParticipants(context.Background(), []chat.ID{chat.ID(vc2)})
		if err != nil || len(ps) != 0 {
			t.Errorf("participants after delete = %v %v", ps, err)
		}
	})
}

// readyVoice reads the voice_states of a fresh Ready for u.
func readyVoice(t *testing.T, e *env, u *apitest.User) []chat.VoiceState {
	t.Helper()
	c, err := e.h.Server.App.Authenticate(context.Background(), u.Token, "")
	if err != nil {
		t.Fatal(err)
	}
	ready, _, err := e.h.Server.App.Ready(context.Background(), c, app.DefaultReadySections())
	if err != nil {
		t.Fatal(err)
	}
	return ready.VoiceStates
}

func TestDirectCalls(t *testing.T) {
	lk := newFakeLiveKit(t)
	e := &env{h: apitest.Start(t, lk.option())}
	h := e.h
	alice, bob, carol := h.NewUser("alice"), h.NewUser("bob"), h.NewUser("carol")
	befriend(t, h, alice, bob)
	befriend(t, h, alice, carol)
	g := createGroup(t, h, alice, map[string]any{"name": "Call", "users": []chat.ID{bob.ID, carol.ID}})
	gid := g["_id"].(string)
	dm := e.call(t, alice, http.MethodGet, "/users/"+string(bob.ID)+"/dm", nil, http.StatusOK).Map(t)["_id"].(string)
	sid, _ := e.server(t, alice, "S")
	svc := e.voiceChannel(t, alice, sid, 0)

	ev := h.Listen(event.Of(chat.ID(gid)), event.Private(bob.ID), event.Private(carol.ID))
	e.call(t, alice, http.MethodPost, "/channels/"+dm+"/join_call", map[string]any{}, http.StatusOK)
	lk.take("CreateRoom")

	e.fail(t, bob, http.MethodPut, "/channels/"+gid+"/end_ring/"+string(carol.ID), nil, http.StatusBadRequest, "NotConnected")
	e.call(t, alice, http.MethodPost, "/channels/"+gid+"/join_call",
		map[string]any{"recipients": []chat.ID{bob.ID, carol.ID}, "force_disconnect": true}, http.StatusOK)
	webhook(t, h, fakeSecret, joined(gid, alice.ID))
	ev.Wait(chat.EvVoiceChannelJoin, nil)
	ring := ev.Wait(chat.EvVoiceCallUpdate, func(x apitest.Event) bool { return x.Topic == event.Private(bob.ID) })
	if ring.Body["initiator_id"] != string(alice.ID) || ring.Body["channel_id"] != gid || ring.Body["ended"] != false ||
		ring.Body["started_at"] == nil {
		t.Errorf("VoiceCallUpdate = %s", ring.Raw)
	}

	e.fail(t, alice, http.MethodPut, "/channels/"+sid+"/end_ring/"+string(bob.ID), nil, http.StatusNotFound, "NotFound")
	e.fail(t, alice, http.MethodPut, "/channels/"+svc+"/end_ring/"+string(bob.ID), nil, http.StatusOK, "NoEffect")
	stranger := h.NewUser("stranger")
	e.fail(t, alice, http.MethodPut, "/channels/"+gid+"/end_ring/"+string(stranger.ID), nil, http.StatusNotFound, "NotFound")
	e.call(t, alice, http.MethodPut, "/channels/"+gid+"/end_ring/"+string(carol.ID), nil, http.StatusNoContent)
	end := ev.Wait(chat.EvVoiceCallUpdate, func(x apitest.Event) bool {
		return x.Topic == event.Private(carol.ID) && x.Body["ended"] == true
	})
	if end.Body["ended"] != true {
		t.Errorf("end_ring = %s", end.Raw)
	}
	call, err := h.Server.Store.FetchVoiceCall(context.Background(), chat.ID(gid))
	if err != nil || !slices.Equal(call.Ring, []chat.ID{bob.ID}) {
		t.Errorf("ring list = %+v %v", call, err)
	}

	// Leaving the group leaves its call; the last one out ends it.
	e.call(t, alice, http.MethodDelete, "/channels/"+gid, nil, http.StatusNoContent)
	ev.Wait(chat.EvVoiceChannelLeave, nil)
	if x := ev.Wait(chat.EvVoiceCallUpdate, func(x apitest.Event) bool { return x.Topic == gid }); x.Body["ended"] != true {
		t.Errorf("call end = %s", x.Raw)
	}
}

func TestVoiceOnTextChannels(t *testing.T) {
	lk := newFakeLiveKit(t)
	e := &env{h: apitest.Start(t, lk.option())}
	h := e.h
	owner := h.NewUser("texter")
	sid, general := e.server(t, owner, "Texts")
	// A text channel carries voice when it has voice information, on
	// create or by an edit.
	res := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/channels",
		map[string]any{"name": "talk", "type": "Text", "voice": map[string]any{"max_users": 3}}, http.StatusOK)
	apitest.CheckSchema(t, "Channel", res.Body)
	talk := res.Map(t)
	if talk["voice"].(map[string]any)["max_users"] != 3.0 {
		t.Errorf("channel = %s", res.Body)
	}
	e.fail(t, owner, http.MethodPost, "/channels/"+general+"/join_call", map[string]any{}, http.StatusBadRequest, "NotAVoiceChannel")
	e.call(t, owner, http.MethodPatch, "/channels/"+general, map[string]any{"voice": map[string]any{"max_users": 1}}, http.StatusOK)
	e.call(t, owner, http.MethodPost, "/channels/"+general+"/join_call", map[string]any{}, http.StatusOK)

	ev := h.Listen(event.Of(chat.ID(general)), event.Of(chat.ID(sid)))
	webhook(t, h, fakeSecret, joined(general, owner.ID))
	ev.Wait(chat.EvVoiceChannelJoin, nil)

	// room_finished clears the call.
	webhook(t, h, fakeSecret, map[string]any{"event": "room_finished", "room": map[string]any{"name": general}})
	ev.Wait(chat.EvVoiceChannelLeave, nil)
	if _, err := h.Server.Store.FetchVoiceCall(context.Background(), chat.ID(general)); err == nil {
		t.Errorf("call kept after room_finished")
	}

	// Deleting the server disconnects everyone in it.
	webhook(t, h, fakeSecret, joined(general, owner.ID))
	ev.Wait(chat.EvVoiceChannelJoin, nil)
	// A new member learns who is in the call from ServerCreate.
	newcomer := h.NewUser("newcomer")
	priv := h.Listen(event.Private(newcomer.ID))
	code := e.call(t, owner, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).Map(t)["_id"].(string)
	e.call(t, newcomer, http.MethodPost, "/invites/"+code, nil, http.StatusOK)
	sc := priv.Wait(chat.EvServerCreate, nil)
	vs, _ := sc.Body["voice_states"].([]any)
	if len(vs) != 1 || vs[0].(map[string]any)["id"] != general ||
		vs[0].(map[string]any)["participants"].([]any)[0].(map[string]any)["id"] != string(owner.ID) {
		t.Errorf("ServerCreate voice_states = %s", sc.Raw)
	}

	lk.take("RemoveParticipant")
	e.call(t, owner, http.MethodDelete, "/servers/"+sid, nil, http.StatusNoContent)
	if rm := lk.take("RemoveParticipant"); len(rm) != 1 || rm[0]["room"] != general {
		t.Errorf("RemoveParticipant after server delete = %v", rm)
	}
	ps, err := h.Server.Store.FetchUserVoiceParticipants(context.Background(), owner.ID)
	if err != nil || len(ps) != 0 {
		t.Errorf("participants after server delete = %v %v", ps, err)
	}
}

// The official clients always ask for the node named "worldwide": on an
// instance whose nodes are named otherwise it means the default (first)
// node, and a node of that name is taken when there is one.
func TestJoinCallWorldwide(t *testing.T) {
	lk := newFakeLiveKit(t)
	e := &env{h: apitest.Start(t, lk.option())}
	owner := e.h.NewUser("official")
	sid, _ := e.server(t, owner, "Official")
	vc := e.voiceChannel(t, owner, sid, 0)
	var tok chat.VoiceToken
	e.call(t, owner, http.MethodPost, "/channels/"+vc+"/join_call", map[string]any{"node": "worldwide"}, http.StatusOK).JSON(t, &tok)
	if tok.URL != "ws://eu.voice.test" {
		t.Errorf("worldwide on nodes eu, us went to %q, want the first node", tok.URL)
	}
	if rooms := lk.take("CreateRoom"); len(rooms) != 1 || rooms[0]["name"] != vc {
		t.Errorf("CreateRoom = %v", rooms)
	}
	// Only that name: another unknown one is still refused.
	e.fail(t, owner, http.MethodPost, "/channels/"+e.voiceChannel(t, owner, sid, 0)+"/join_call",
		map[string]any{"node": "worldwid"}, http.StatusBadRequest, "UnknownNode")

	named := &env{h: apitest.Start(t, lk.option(), func(c *config.Config) {
		c.Voice.Nodes[1].Name = app.DefaultVoiceNode
	})}
	owner = named.h.NewUser("official")
	sid, _ = named.server(t, owner, "Official")
	vc = named.voiceChannel(t, owner, sid, 0)
	named.call(t, owner, http.MethodPost, "/channels/"+vc+"/join_call", map[string]any{"node": "worldwide"}, http.StatusOK).JSON(t, &tok)
	if tok.URL != "ws://us.voice.test" {
		t.Errorf("worldwide with a node of that name went to %q", tok.URL)
	}
}
