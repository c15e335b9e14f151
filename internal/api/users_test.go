package api_test

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"testing"
	"time"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/event"
)

func TestFetchUser(t *testing.T) {
	h := apitest.Start(t)
	me := h.NewUser("stoat")
	friend := h.NewUser("weasel")
	stranger := h.NewUser("marten")
	befriend(t, h, me, friend)

	t.Run("self", func(t *testing.T) {
		for _, path := range []string{"/users/@me", "/users/" + string(me.ID), "/api/users/@me"} {
			res := h.Get(path, me.Token)
			apitest.CheckSchema(t, "User", res.Body)
			u := wantOK(t, res)
			if u["_id"] != string(me.ID) || u["relationship"] != "User" || u["online"] != false {
				t.Errorf("%s = %v", path, u)
			}
			rel, _ := u["relations"].([]any)
			if len(rel) != 1 || rel[0].(map[string]any)["status"] != "Friend" {
				t.Errorf("%s relations = %v", path, u["relations"])
			}
		}
	})
	t.Run("friend", func(t *testing.T) {
		res := h.Get("/users/"+string(friend.ID), me.Token)
		apitest.CheckSchema(t, "User", res.Body)
		u := wantOK(t, res)
		if u["relationship"] != "Friend" || u["username"] != "weasel" {
			t.Errorf("friend = %v", u)
		}
		if _, ok := u["relations"]; ok {
			t.Errorf("another user's relations were sent: %v", u)
		}
	})
	t.Run("stranger", func(t *testing.T) {
		m := wantError(t, h.Get("/users/"+string(stranger.ID), me.Token), http.StatusForbidden, "MissingPermission")
		if m["permission"] != "Access" {
			t.Errorf("permission = %v", m["permission"])
		}
	})
	t.Run("server member", func(t *testing.T) {
		a, b := h.NewUser("ferret"), h.NewUser("mink")
		newServer(t, h, a, b)
		u := wantOK(t, h.Get("/users/"+string(b.ID), a.Token))
		if u["relationship"] != "None" {
			t.Errorf("member = %v", u)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		wantError(t, h.Get("/users/"+string(chat.NewID()), me.Token), http.StatusNotFound, "NotFound")
	})
	t.Run("no token", func(t *testing.T) {
		wantError(t, h.Get("/users/@me", ""), http.StatusUnauthorized, "NotAuthenticated")
		wantError(t, h.Get("/users/@me", chat.NewToken(64)), http.StatusUnauthorized, "InvalidSession")
	})
	t.Run("bot token", func(t *testing.T) {
		bot, tok := newBotUser(t, h, me, "helper")
		res := h.Do(apitest.Request{Method: http.MethodGet, Path: "/users/@me", Bot: tok})
		u := wantOK(t, res)
		if u["_id"] != string(bot.ID) || u["bot"].(map[string]any)["owner"] != string(me.ID) {
			t.Errorf("bot self = %v", u)
		}
	})
}

func TestEditUser(t *testing.T) {
	h := apitest.Start(t)

	t.Run("fields and events", func(t *testing.T) {
		me, peer := h.NewUser("otter"), h.NewUser("badger")
		sv := newServer(t, h, peer, me)
		ev := h.Listen(event.Of(me.ID), event.Members(sv.ID))
		avatar := uploadRecord(t, h, me, chat.TagAvatars)
		res := h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/@me", Session: me.Token, Body: map[string]any{
			"display_name": "Otto", "avatar": avatar, "status": map[string]any{"text": "swimming", "presence": "Busy"},
		}})
		apitest.CheckSchema(t, "User", res.Body)
		u := wantOK(t, res)
		if u["display_name"] != "Otto" || u["avatar"].(map[string]any)["_id"] != avatar ||
			u["status"].(map[string]any)["text"] != "swimming" || u["relationship"] != "User" {
			t.Errorf("edited = %v", u)
		}
		for _, topic := range []string{event.Of(me.ID), event.Members(sv.ID)} {
			e := ev.Wait(chat.EvUserUpdate, func(e apitest.Event) bool { return e.Topic == topic })
			data := e.Body["data"].(map[string]any)
			if e.Body["id"] != string(me.ID) || data["display_name"] != "Otto" ||
				data["status"].(map[string]any)["presence"] != "Busy" || data["avatar"] == nil {
				t.Errorf("UserUpdate on %s = %s", topic, e.Raw)
			}
			if clear, ok := e.Body["clear"].([]any); !ok || len(clear) != 0 {
				t.Errorf("clear = %v", e.Body["clear"])
			}
			if _, ok := e.Body["event_id"]; !ok {
				t.Errorf("event_id missing: %s", e.Raw)
			}
		}
		if rec := fileRecord(t, h, avatar); rec.UsedFor == "" {
			t.Errorf("avatar not marked used: %+v", rec)
		}

		// Status merges; remove clears.
		res = h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/" + string(me.ID), Session: freshSession(t, h, me),
			Body: map[string]any{"status": map[string]any{"presence": "Idle"}, "remove": []string{"DisplayName", "Avatar"}}})
		u = wantOK(t, res)
		if _, ok := u["display_name"]; ok {
			t.Errorf("display name kept: %v", u)
		}
		if _, ok := u["avatar"]; ok {
			t.Errorf("avatar kept: %v", u)
		}
		if st := u["status"].(map[string]any); st["text"] != "swimming" || st["presence"] != "Idle" {
			t.Errorf("status = %v", st)
		}
		e := ev.Wait(chat.EvUserUpdate, func(e apitest.Event) bool { return e.Topic == event.Of(me.ID) })
		if st := e.Body["data"].(map[string]any)["status"].(map[string]any); st["text"] != "swimming" || st["presence"] != "Idle" {
			t.Errorf("merged status = %v", st)
		}
		if clear := e.Body["clear"].([]any); len(clear) != 2 || clear[0] != "DisplayName" || clear[1] != "Avatar" {
			t.Errorf("clear = %v", clear)
		}
		if rec := fileRecord(t, h, avatar); rec.Deleted == nil || !*rec.Deleted {
			t.Errorf("removed avatar not dropped: %+v", rec)
		}
	})

	t.Run("profile", func(t *testing.T) {
		me := h.NewUser("ermine")
		ev := h.Listen(event.Of(me.ID))
		bg := uploadRecord(t, h, me, chat.TagBackgrounds)
		wantOK(t, h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/@me", Session: me.Token,
			Body: map[string]any{"profile": map[string]any{"content": "hello", "background": bg}}}))
		e := ev.Wait(chat.EvUserUpdate, nil)
		if data := e.Body["data"].(map[string]any); len(data) != 0 {
			t.Errorf("profile-only edit data = %v", data)
		}
		res := h.Get("/users/@me/profile", me.Token)
		apitest.CheckSchema(t, "UserProfile", res.Body)
		p := wantOK(t, res)
		if p["content"] != "hello" || p["background"].(map[string]any)["_id"] != bg {
			t.Errorf("profile = %v", p)
		}
		wantOK(t, h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/@me", Session: me.Token,
			Body: map[string]any{"remove": []string{"ProfileContent"}}}))
		e = ev.Wait(chat.EvUserUpdate, nil)
		if clear := e.Body["clear"].([]any); len(clear) != 1 || clear[0] != "ProfileContent" {
			t.Errorf("clear = %v", clear)
		}
		p = wantOK(t, h.Get("/users/@me/profile", me.Token))
		if _, ok := p["content"]; ok || p["background"] == nil {
			t.Errorf("profile after remove = %v", p)
		}
	})

	t.Run("own bot", func(t *testing.T) {
		me := h.NewUser("keeper")
		bot, _ := newBotUser(t, h, me, "pet")
		u := wantOK(t, h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/" + string(bot.ID), Session: me.Token,
			Body: map[string]any{"display_name": "Pet Bot"}}))
		if u["display_name"] != "Pet Bot" || u["_id"] != string(bot.ID) {
			t.Errorf("bot edit = %v", u)
		}
	})

	t.Run("refused", func(t *testing.T) {
		me, other := h.NewUser("polecat"), h.NewUser("sable")
		ev := h.Listen(event.Of(me.ID), event.Of(other.ID))
		wrongTag := uploadRecord(t, h, me, chat.TagIcons)
		used := uploadRecord(t, h, me, chat.TagAvatars)
		rec := fileRecord(t, h, used)
		rec.UsedFor = "message"
		if err := h.Server.Store.UpdateFile(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name   string
			path   string
			body   any
			status int
			typ    string
		}{
			{"display name too short", "/users/@me", map[string]any{"display_name": "x"}, 422, "FailedValidation"},
			{"display name with newline", "/users/@me", map[string]any{"display_name": "a\nb"}, 422, "FailedValidation"},
			{"status text too long", "/users/@me", map[string]any{"status": map[string]any{"text": string(bytes.Repeat([]byte("a"), 129))}}, 422, "FailedValidation"},
			{"unknown presence", "/users/@me", map[string]any{"status": map[string]any{"presence": "Asleep"}}, 422, "FailedValidation"},
			{"unknown remove field", "/users/@me", map[string]any{"remove": []string{"Username"}}, 422, "FailedValidation"},
			{"profile too long", "/users/@me", map[string]any{"profile": map[string]any{"content": string(bytes.Repeat([]byte("a"), 2001))}}, 422, "FailedValidation"},
			{"malformed", "/users/@me", "{", 400, "FailedValidation"},
			{"unknown avatar", "/users/@me", map[string]any{"avatar": "nope"}, 404, "NotFound"},
			{"avatar with another tag", "/users/@me", map[string]any{"avatar": wrongTag}, 404, "NotFound"},
			{"avatar used already", "/users/@me", map[string]any{"avatar": used}, 404, "NotFound"},
			{"badges", "/users/@me", map[string]any{"badges": 1}, 403, "NotPrivileged"},
			{"flags", "/users/@me", map[string]any{"flags": 8}, 403, "NotPrivileged"},
			// The reference answers NotPrivileged for a user that is not
			// the caller's bot (an unknown id stays NotFound).
			{"someone else", "/users/" + string(other.ID), map[string]any{"display_name": "Hacked"}, 403, "NotPrivileged"},
			{"someone else, pronouns", "/users/" + string(other.ID), map[string]any{"pronouns": "they/them"}, 403, "NotPrivileged"},
			{"unknown user", "/users/" + string(chat.NewID()), map[string]any{"display_name": "Ghost"}, 404, "NotFound"},
			{"pronouns too long", "/users/@me", map[string]any{"pronouns": string(bytes.Repeat([]byte("a"), 25))}, 422, "FailedValidation"},
			{"pronouns empty", "/users/@me", map[string]any{"pronouns": ""}, 422, "FailedValidation"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := h.Do(apitest.Request{Method: http.MethodPatch, Path: tc.path, Session: freshSession(t, h, me), Body: tc.body})
				wantError(t, res, tc.status, tc.typ)
			})
		}
		ev.None(200 * time.Millisecond)
		u, err := h.Server.Store.FetchUser(context.Background(), other.ID)
		if err != nil || u.DisplayName != nil {
			t.Errorf("other user changed: %+v %v", u, err)
		}
		if rec := fileRecord(t, h, wrongTag); rec.UsedFor != "" {
			t.Errorf("refused file was claimed: %+v", rec)
		}
	})

	t.Run("privileged sets flags", func(t *testing.T) {
		staff := h.NewUser("warden")
		u, _ := h.Server.Store.FetchUser(context.Background(), staff.ID)
		u.Privileged = true
		if err := h.Server.Store.UpdateUser(context.Background(), u); err != nil {
			t.Fatal(err)
		}
		got := wantOK(t, h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/@me", Session: staff.Token,
			Body: map[string]any{"badges": 1, "flags": 0}}))
		if got["badges"] != float64(1) {
			t.Errorf("badges = %v", got["badges"])
		}
	})
}

func TestChangeUsername(t *testing.T) {
	h := apitest.Start(t)
	const pw = "correct horse battery"
	change := func(u *apitest.User, name, password string) *apitest.Response {
		return h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/@me/username", Session: freshSession(t, h, u),
			Body: map[string]any{"username": name, "password": password}})
	}

	t.Run("case change keeps discriminator", func(t *testing.T) {
		me := h.NewUser("lutra")
		setPassword(t, h, me, pw)
		ev := h.Listen(event.Of(me.ID))
		res := change(me, "Lutra", pw)
		apitest.CheckSchema(t, "User", res.Body)
		u := wantOK(t, res)
		if u["username"] != "Lutra" || u["discriminator"] != me.Discriminator {
			t.Errorf("user = %v", u)
		}
		e := ev.Wait(chat.EvUserUpdate, nil)
		data := e.Body["data"].(map[string]any)
		if data["username"] != "Lutra" || data["discriminator"] != nil {
			t.Errorf("data = %v", data)
		}
	})
	t.Run("free discriminator is kept", func(t *testing.T) {
		me := h.NewUser("vison")
		setPassword(t, h, me, pw)
		u := wantOK(t, change(me, "Ильич", pw))
		if u["username"] != "Ильич" || u["discriminator"] != me.Discriminator {
			t.Errorf("user = %v", u)
		}
	})
	t.Run("taken discriminator is replaced once a day", func(t *testing.T) {
		holder, me := h.NewUser("grison"), h.NewUser("tayra")
		setPassword(t, h, me, pw)
		// Give holder me's discriminator under the name me wants.
		hu, _ := h.Server.Store.FetchUser(context.Background(), holder.ID)
		hu.Username, hu.Discriminator = "zorilla", me.Discriminator
		if err := h.Server.Store.UpdateUser(context.Background(), hu); err != nil {
			t.Fatal(err)
		}
		ev := h.Listen(event.Of(me.ID))
		u := wantOK(t, change(me, "ZORILLA", pw))
		if u["username"] != "ZORILLA" || u["discriminator"] == me.Discriminator {
			t.Errorf("user = %v", u)
		}
		e := ev.Wait(chat.EvUserUpdate, nil)
		if e.Body["data"].(map[string]any)["discriminator"] != u["discriminator"] {
			t.Errorf("event = %s", e.Raw)
		}
		// A second forced change the same day is refused...
		hu.Username, hu.Discriminator = "zorilla", u["discriminator"].(string)
		hu2 := *hu
		hu2.ID, hu2.Username = chat.NewID(), "Kolinsky"
		hu2.Discriminator = u["discriminator"].(string)
		if err := h.Server.Store.InsertUser(context.Background(), &hu2); err != nil {
			t.Fatal(err)
		}
		wantError(t, change(me, "kolinsky", pw), http.StatusTooManyRequests, "DiscriminatorChangeRatelimited")
		// ...but a change that keeps the discriminator is not.
		wantOK(t, change(me, "Zorilla2", pw))
	})
	t.Run("refused", func(t *testing.T) {
		me := h.NewUser("huron")
		setPassword(t, h, me, pw)
		cases := []struct {
			name, username, password string
			status                   int
			typ                      string
		}{
			{"wrong password", "hurons", "wrong password!", 401, "InvalidCredentials"},
			{"too short", "h", pw, 422, "FailedValidation"},
			{"space", "two words", pw, 422, "FailedValidation"},
			{"password too short", "hurons", "short", 422, "FailedValidation"},
			{"reserved", "Admin", pw, 400, "InvalidUsername"},
			{"link", "discord.gg", pw, 400, "InvalidUsername"},
			{"full-width letters", "ｈｕｒｏｎ", pw, 400, "InvalidUsername"},
			{"cyrillic lookalike mixed in", "hurоn", pw, 400, "InvalidUsername"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, change(me, tc.username, tc.password), tc.status, tc.typ)
			})
		}
		u, _ := h.Server.Store.FetchUser(context.Background(), me.ID)
		if u.Username != "huron" {
			t.Errorf("username changed to %q", u.Username)
		}
	})
	t.Run("no password set", func(t *testing.T) {
		me := h.NewUser("nopass")
		wantError(t, change(me, "nopass2", "whatever123"), 401, "InvalidCredentials")
	})
	t.Run("bot", func(t *testing.T) {
		owner := h.NewUser("botowner")
		_, tok := newBotUser(t, h, owner, "robo")
		res := h.Do(apitest.Request{Method: http.MethodPatch, Path: "/users/@me/username", Bot: tok,
			Body: map[string]any{"username": "robo2", "password": "whatever123"}})
		wantError(t, res, 400, "IsBot")
	})
}

func TestUserFlags(t *testing.T) {
	h := apitest.Start(t)
	u := h.NewUser("flagged")
	stored, _ := h.Server.Store.FetchUser(context.Background(), u.ID)
	stored.Flags = chat.UserFlagSpam
	if err := h.Server.Store.UpdateUser(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   chat.ID
		want float64
	}{{u.ID, 8}, {chat.NewID(), 0}} {
		res := h.Get("/users/"+string(tc.id)+"/flags", "")
		apitest.CheckSchema(t, "FlagResponse", res.Body)
		if m := wantOK(t, res); m["flags"] != tc.want {
			t.Errorf("flags of %s = %v, want %v", tc.id, m["flags"], tc.want)
		}
	}
}

func TestDefaultAvatar(t *testing.T) {
	h := apitest.Start(t)
	seen := map[string]bool{}
	for _, id := range []string{string(chat.NewID()), "01J0000000000000000000000A", "01J0000000000000000000000B", "x"} {
		res := h.Get("/users/"+id+"/default_avatar", "")
		if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("GET default_avatar = %d %s", res.Status, res.Header.Get("Content-Type"))
		}
		if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("Cache-Control = %q", cc)
		}
		img, err := png.Decode(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
			t.Errorf("size = %v", b)
		}
		seen[string(res.Body)] = true
		again := h.Get("/users/"+id+"/default_avatar", "")
		if !bytes.Equal(again.Body, res.Body) {
			t.Errorf("avatar of %s changed between requests", id)
		}
	}
	if len(seen) < 2 {
		t.Errorf("every id got the same picture")
	}
}

func TestProfileAndMutual(t *testing.T) {
	h := apitest.Start(t)
	me, friend, stranger, common := h.NewUser("pine"), h.NewUser("beech"), h.NewUser("larch"), h.NewUser("alder")
	befriend(t, h, me, friend)
	befriend(t, h, me, common)
	befriend(t, h, friend, common)
	sv := newServer(t, h, me, friend)

	t.Run("profile", func(t *testing.T) {
		res := h.Get("/users/"+string(friend.ID)+"/profile", me.Token)
		apitest.CheckSchema(t, "UserProfile", res.Body)
		wantOK(t, res)
		m := wantError(t, h.Get("/users/"+string(stranger.ID)+"/profile", me.Token), 403, "MissingPermission")
		if m["permission"] != "ViewProfile" {
			t.Errorf("permission = %v", m["permission"])
		}
		wantError(t, h.Get("/users/"+string(chat.NewID())+"/profile", me.Token), 404, "NotFound")
	})
	t.Run("mutual", func(t *testing.T) {
		dm := wantOK(t, h.Get("/users/"+string(friend.ID)+"/dm", me.Token))
		res := h.Get("/users/"+string(friend.ID)+"/mutual", me.Token)
		apitest.CheckSchema(t, "MutualResponse", res.Body)
		m := wantOK(t, res)
		users, servers, chans := m["users"].([]any), m["servers"].([]any), m["channels"].([]any)
		if len(users) != 1 || users[0] != string(common.ID) {
			t.Errorf("users = %v", users)
		}
		if len(servers) != 1 || servers[0] != string(sv.ID) {
			t.Errorf("servers = %v", servers)
		}
		if len(chans) != 1 || chans[0] != dm["_id"] {
			t.Errorf("channels = %v", chans)
		}
		wantError(t, h.Get("/users/@me/mutual", me.Token), 400, "InvalidOperation")
		wantError(t, h.Get("/users/"+string(stranger.ID)+"/mutual", me.Token), 403, "MissingPermission")
	})
}
