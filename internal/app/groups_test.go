package app

import (
	"context"
	"errors"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
)

// group makes a group owned by owner with members, all friends of owner.
func (ta *testApp) group(t *testing.T, owner *Caller, members ...*Caller) *chat.Channel {
	t.Helper()
	ids := make([]chat.ID, len(members))
	for i, m := range members {
		ta.friends(t, owner, m)
		ids[i] = m.ID()
	}
	g, err := ta.CreateGroup(context.Background(), owner, chat.GroupCreate{Name: "den", Users: ids})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// icon stores an unused upload in the icons tag.
func (ta *testApp) icon(t *testing.T, tag string) string {
	t.Helper()
	id := chat.NewToken(42)
	if err := ta.st.InsertFile(context.Background(), &chat.FileRecord{File: chat.File{ID: id, Tag: tag,
		Filename: "i.png", ContentType: "image/png", Size: 10, Metadata: chat.Metadata{Type: "Image"}},
		Hash: chat.NewToken(64), UploadedAt: chat.Now()}); err != nil {
		t.Fatal(err)
	}
	return id
}

func ptr[T any](v T) *T { return &v }

// systemTypes lists the system message types of the messages in ch.
func (ta *testApp) systemTypes(t *testing.T, ch chat.ID) []string {
	t.Helper()
	msgs, err := ta.st.FetchMessages(context.Background(), storeQuery(ch))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(msgs) - 1; i >= 0; i-- { // oldest first
		if msgs[i].System != nil && msgs[i].Author == chat.SystemID {
			out = append(out, msgs[i].System.Type)
		}
	}
	return out
}

func TestEditGroup(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	owner, member, outsider := ta.user(t, "owner"), ta.user(t, "member"), ta.user(t, "outsider")

	t.Run("name, description, icon and owner", func(t *testing.T) {
		g := ta.group(t, owner, member)
		ev := ta.listen(t, event.Of(g.ID))
		icon := ta.icon(t, chat.TagIcons)
		out, err := ta.editGroup(ctx, owner, g, chat.ChannelEdit{Name: ptr("lodge"), Description: ptr("warm"),
			Icon: ptr(icon), NSFW: ptr(true), Owner: ptr(member.ID())})
		if err != nil {
			t.Fatal(err)
		}
		if out.Name != "lodge" || *out.Description != "warm" || out.Icon.ID != icon || !out.NSFW || out.Owner != member.ID() {
			t.Errorf("group = %+v", out)
		}
		got := ev.expect(
			[2]string{chat.EvMessage, event.Of(g.ID)}, [2]string{chat.EvMessage, event.Of(g.ID)},
			[2]string{chat.EvMessage, event.Of(g.ID)}, [2]string{chat.EvMessage, event.Of(g.ID)},
			[2]string{chat.EvChannelUpdate, event.Of(g.ID)})
		wantSys := []map[string]any{
			{"type": "channel_renamed", "name": "lodge", "by": string(owner.ID())},
			{"type": "channel_description_changed", "by": string(owner.ID())},
			{"type": "channel_icon_changed", "by": string(owner.ID())},
			{"type": "channel_ownership_changed", "from": string(owner.ID()), "to": string(member.ID())},
		}
		for i, w := range wantSys {
			sys := got[i].body["system"].(map[string]any)
			for k, v := range w {
				if sys[k] != v {
					t.Errorf("system message %d = %v, want %v", i, sys, w)
				}
			}
			if got[i].body["author"] != string(chat.SystemID) {
				t.Errorf("author = %v", got[i].body["author"])
			}
		}
		data := got[4].body["data"].(map[string]any)
		if data["name"] != "lodge" || data["description"] != "warm" || data["owner"] != string(member.ID()) ||
			data["nsfw"] != true || data["icon"].(map[string]any)["_id"] != icon {
			t.Errorf("ChannelUpdate data = %v", data)
		}

		// The new owner removes description and icon.
		out, err = ta.editGroup(ctx, member, out, chat.ChannelEdit{Remove: []string{"Description", "Icon"}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Description != nil || out.Icon != nil {
			t.Errorf("after remove = %+v", out)
		}
		up := ev.expect([2]string{chat.EvChannelUpdate, event.Of(g.ID)})[0]
		if clear := up.body["clear"].([]any); len(clear) != 2 || clear[0] != "Description" || clear[1] != "Icon" {
			t.Errorf("clear = %v", clear)
		}
		if rec, _ := ta.st.FetchFile(ctx, icon); rec.Deleted == nil || !*rec.Deleted {
			t.Errorf("removed icon kept: %+v", rec)
		}
	})
	t.Run("refused", func(t *testing.T) {
		g := ta.group(t, owner, member)
		used := ta.icon(t, chat.TagAvatars)
		noManage := ta.group(t, owner, member)
		if _, err := ta.setGroupDefaultPermissions(ctx, owner, noManage, int64(perm.ViewOnly)); err != nil {
			t.Fatal(err)
		}
		noManage, _ = ta.st.FetchChannel(ctx, noManage.ID)
		ev := ta.listen(t, event.Of(g.ID), event.Of(noManage.ID))
		cases := []struct {
			name string
			c    *Caller
			g    *chat.Channel
			data chat.ChannelEdit
			want error
		}{
			{"owner change by a member", member, g, chat.ChannelEdit{Owner: ptr(member.ID())}, chat.ErrNotOwner},
			{"owner to an outsider", owner, g, chat.ChannelEdit{Owner: ptr(outsider.ID())}, chat.ErrNotInGroup},
			{"outsider", outsider, g, chat.ChannelEdit{Name: ptr("mine")}, chat.ErrNotFound},
			{"icon of the wrong tag", owner, g, chat.ChannelEdit{Icon: ptr(used)}, chat.ErrNotFound},
			{"member without ManageChannel", member, noManage, chat.ChannelEdit{Name: ptr("x")}, chat.ErrMissingPermission("ManageChannel")},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := ta.editGroup(ctx, tc.c, tc.g, tc.data)
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				var ce *chat.Error
				if errors.As(err, &ce) && ce.Type == "MissingPermission" && ce.Fields["permission"] != "ManageChannel" {
					t.Errorf("permission = %v", ce.Fields["permission"])
				}
			})
		}
		ev.none()
		if got, _ := ta.st.FetchChannel(ctx, g.ID); got.Name != "den" || got.Owner != owner.ID() {
			t.Errorf("group changed: %+v", got)
		}
	})
	t.Run("empty edit", func(t *testing.T) {
		g := ta.group(t, owner, member)
		ev := ta.listen(t, event.Of(g.ID))
		if _, err := ta.editGroup(ctx, member, g, chat.ChannelEdit{}); err != nil {
			t.Fatal(err)
		}
		ev.none()
	})
}

func TestDeleteDirectChannel(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	a, b, c, d := ta.user(t, "anna"), ta.user(t, "bert"), ta.user(t, "cleo"), ta.user(t, "dora")

	t.Run("saved messages", func(t *testing.T) {
		saved, err := ta.OpenDM(ctx, a, Me)
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.deleteDirectChannel(ctx, a, saved, false); !errors.Is(err, chat.ErrNoEffect) {
			t.Errorf("err = %v, want NoEffect", err)
		}
		if err := ta.deleteDirectChannel(ctx, b, saved, false); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("someone else's: err = %v, want NotFound", err)
		}
	})
	t.Run("close a direct message", func(t *testing.T) {
		ta.friends(t, a, b)
		dm, err := ta.OpenDM(ctx, a, b.ID())
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.st.SetLastMessage(ctx, dm.ID, chat.NewID()); err != nil { // opens it
			t.Fatal(err)
		}
		ev := ta.listen(t, event.Of(dm.ID))
		if err := ta.deleteDirectChannel(ctx, b, dm, false); err != nil {
			t.Fatal(err)
		}
		up := ev.expect([2]string{chat.EvChannelUpdate, event.Of(dm.ID)})[0]
		if up.body["data"].(map[string]any)["active"] != false {
			t.Errorf("ChannelUpdate = %v", up.body)
		}
		got, _ := ta.st.FetchChannel(ctx, dm.ID)
		if got.Active == nil || *got.Active {
			t.Errorf("active = %v", got.Active)
		}
		if err := ta.deleteDirectChannel(ctx, c, dm, false); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("outsider: err = %v", err)
		}
	})
	t.Run("members leave, ownership passes, last one deletes", func(t *testing.T) {
		g := ta.group(t, a, b, c)
		ev := ta.listen(t, event.Of(g.ID))
		// A member leaves.
		if err := ta.deleteDirectChannel(ctx, c, g, false); err != nil {
			t.Fatal(err)
		}
		got := ev.expect([2]string{chat.EvChannelGroupLeave, event.Of(g.ID)}, [2]string{chat.EvMessage, event.Of(g.ID)})
		if got[0].body["user"] != string(c.ID()) || got[1].body["system"].(map[string]any)["type"] != "user_left" {
			t.Errorf("leave events = %v", got)
		}
		// The owner leaves silently: ownership passes to b.
		if err := ta.deleteDirectChannel(ctx, a, g, true); err != nil {
			t.Fatal(err)
		}
		got = ev.expect([2]string{chat.EvChannelGroupLeave, event.Of(g.ID)}, [2]string{chat.EvChannelUpdate, event.Of(g.ID)},
			[2]string{chat.EvMessage, event.Of(g.ID)})
		if got[1].body["data"].(map[string]any)["owner"] != string(b.ID()) {
			t.Errorf("ChannelUpdate = %v", got[1].body)
		}
		if sys := got[2].body["system"].(map[string]any); sys["type"] != "channel_ownership_changed" ||
			sys["from"] != string(a.ID()) || sys["to"] != string(b.ID()) {
			t.Errorf("system = %v", sys)
		}
		ev.none() // silent: no user_left
		stored, _ := ta.st.FetchChannel(ctx, g.ID)
		if stored.Owner != b.ID() || len(stored.Recipients) != 1 {
			t.Errorf("group = %+v", stored)
		}
		// Someone who is not in it any more cannot leave again.
		if err := ta.deleteDirectChannel(ctx, a, stored, false); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("err = %v", err)
		}
		// The last one out deletes the group.
		if err := ta.deleteDirectChannel(ctx, b, stored, false); err != nil {
			t.Fatal(err)
		}
		ev.expect([2]string{chat.EvChannelDelete, event.Of(g.ID)})
		ev.none()
		if _, err := ta.st.FetchChannel(ctx, g.ID); err == nil {
			t.Error("group still stored")
		}
	})
	t.Run("system messages are stored", func(t *testing.T) {
		g := ta.group(t, a, d)
		if err := ta.deleteDirectChannel(ctx, d, g, false); err != nil {
			t.Fatal(err)
		}
		types := ta.systemTypes(t, g.ID)
		if len(types) != 1 || types[0] != "user_left" {
			t.Errorf("system messages = %v", types)
		}
		ta.sends.lastMessages.Flush() // last messages are written in batches
		stored, _ := ta.st.FetchChannel(ctx, g.ID)
		if stored.LastMessageID == nil {
			t.Error("last message not recorded")
		}
	})
}

func TestSetGroupDefaultPermissions(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	owner, member := ta.user(t, "owner"), ta.user(t, "member")
	g := ta.group(t, owner, member)
	ev := ta.listen(t, event.Of(g.ID))

	out, err := ta.setGroupDefaultPermissions(ctx, owner, g, int64(perm.ViewOnly|perm.SendMessage))
	if err != nil {
		t.Fatal(err)
	}
	if out.Permissions == nil || *out.Permissions != int64(perm.ViewOnly|perm.SendMessage) {
		t.Errorf("permissions = %v", out.Permissions)
	}
	up := ev.expect([2]string{chat.EvChannelUpdate, event.Of(g.ID)})[0]
	if up.body["data"].(map[string]any)["permissions"] != float64(perm.ViewOnly|perm.SendMessage) {
		t.Errorf("ChannelUpdate = %v", up.body)
	}
	// The member now lacks ManagePermissions (and everything else but
	// viewing and sending).
	p, _ := ta.channelPermissions(ctx, member.User, out)
	if p != perm.ViewOnly|perm.SendMessage {
		t.Errorf("member holds %v", p)
	}
	if _, err := ta.setGroupDefaultPermissions(ctx, member, out, int64(perm.GrantAllSafe)); !errors.Is(err, chat.ErrMissingPermission("ManagePermissions")) {
		t.Errorf("member: err = %v", err)
	}
	if _, err := ta.setGroupDefaultPermissions(ctx, owner, out, -1); !errors.Is(err, chat.ErrCannotGiveMissingPermissions) {
		t.Errorf("negative: err = %v", err)
	}
	ev.none()
}

func TestJoinGroupInvite(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	owner, joiner := ta.user(t, "host"), ta.user(t, "guest")
	g := ta.group(t, owner)
	ev := ta.listen(t, event.Of(g.ID), event.Private(joiner.ID()))

	out, users, err := ta.joinGroupInvite(ctx, joiner, g)
	if err != nil {
		t.Fatal(err)
	}
	if !out.HasRecipient(joiner.ID()) || len(users) != 2 || users[0].ID != owner.ID() || users[1].Relationship != chat.RelationUser {
		t.Errorf("joined = %+v, users = %+v", out, users)
	}
	got := ev.expect([2]string{chat.EvChannelGroupJoin, event.Of(g.ID)}, [2]string{chat.EvMessage, event.Of(g.ID)},
		[2]string{chat.EvChannelCreate, event.Private(joiner.ID())})
	if sys := got[1].body["system"].(map[string]any); sys["type"] != "user_joined" || sys["id"] != string(joiner.ID()) {
		t.Errorf("system = %v", sys)
	}
	if _, _, err := ta.joinGroupInvite(ctx, joiner, out); !errors.Is(err, chat.ErrAlreadyInGroup) {
		t.Errorf("again: err = %v", err)
	}
	bot := &Caller{User: &chat.User{ID: chat.NewID(), Bot: &chat.BotInformation{Owner: owner.ID()}}, Bot: &chat.Bot{}}
	if _, _, err := ta.joinGroupInvite(ctx, bot, out); !errors.Is(err, chat.ErrIsBot) {
		t.Errorf("bot: err = %v", err)
	}
	ev.none()
}
