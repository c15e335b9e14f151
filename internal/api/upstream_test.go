package api_test

// Tests of what later reference versions added to the contract
// (upstream.md §1): slowmode, the audit log, emoji rename, pronouns, role
// ids and icons, server ownership transfer, approximate_member_count and
// the root object's limits and legal links.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/event"
	"ermine/internal/perm"
)

func TestSlowmode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, ann, bo := e.h.NewUser("Owner"), e.h.NewUser("Ann"), e.h.NewUser("Bo")
	sid, general := e.server(t, owner, "Slow")
	e.join(t, sid, ann)
	bypass := e.role(t, owner, sid, "Regular", uint64(perm.BypassSlowmode))
	e.join(t, sid, bo, bypass)
	chEvents := e.h.Listen(event.Of(chat.ID(sid)))

	// Created with slowmode; out-of-range values are refused.
	res := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/channels",
		map[string]any{"name": "slow", "slowmode": 30}, http.StatusOK)
	apitest.CheckSchema(t, "Channel", res.Body)
	slow := res.Map(t)
	if slow["slowmode"] != float64(30) {
		t.Fatalf("created channel = %s", res.Body)
	}
	cid := slow["_id"].(string)
	e.fail(t, owner, http.MethodPost, "/servers/"+sid+"/channels", map[string]any{"name": "x", "slowmode": 21601}, 422, "FailedValidation")
	e.fail(t, owner, http.MethodPatch, "/channels/"+general, map[string]any{"slowmode": -1}, 422, "FailedValidation")
	e.fail(t, ann, http.MethodPatch, "/channels/"+general, map[string]any{"slowmode": 10}, 403, "MissingPermission", "ManageChannel")

	// Edited on: ChannelUpdate carries it.
	e.call(t, owner, http.MethodPatch, "/channels/"+general, map[string]any{"slowmode": 21600}, http.StatusOK)
	chEvents.Wait(chat.EvChannelUpdate, func(ev apitest.Event) bool {
		return ev.Body["id"] == general && ev.Body["data"].(map[string]any)["slowmode"] == float64(21600)
	})

	// A member sends once, then is refused with the time left and told
	// privately which windows are open.
	private := e.h.Listen(event.Private(ann.ID))
	send := func(u *apitest.User, ch string) *apitest.Response {
		return e.h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + ch + "/messages",
			Session: u.Token, Body: map[string]any{"content": "hello"}})
	}
	if res := send(ann, cid); res.Status != http.StatusOK {
		t.Fatalf("first send = %d %s", res.Status, res.Body)
	}
	refused := send(ann, cid)
	body := wantError(t, refused, http.StatusTooManyRequests, "InSlowmode")
	if ra := body["retry_after"].(float64); ra < 29 || ra > 30 {
		t.Fatalf("retry_after = %v, want 30 or just under", ra)
	}
	ev := private.Wait(chat.EvUserSlowmodes, nil)
	list := ev.Body["slowmodes"].([]any)
	if len(list) != 1 {
		t.Fatalf("UserSlowmodes = %s", ev.Raw)
	}
	sm := list[0].(map[string]any)
	if sm["channel_id"] != cid || sm["duration"] != float64(30) || sm["retry_after"].(float64) < 29 {
		t.Fatalf("UserSlowmodes = %s", ev.Raw)
	}
	// Other channels are not held; general has its own window.
	if res := send(ann, general); res.Status != http.StatusOK {
		t.Fatalf("send elsewhere = %d %s", res.Status, res.Body)
	}
	wantError(t, send(ann, general), http.StatusTooManyRequests, "InSlowmode")

	// The owner and holders of BypassSlowmode are not held.
	for range 3 {
		if res := send(owner, cid); res.Status != http.StatusOK {
			t.Fatalf("owner send = %d %s", res.Status, res.Body)
		}
		if res := send(bo, cid); res.Status != http.StatusOK {
			t.Fatalf("bypass send = %d %s", res.Status, res.Body)
		}
	}

	// UserSlowmodes follows Ready on a new connection while windows are open.
	frames := readyFrames(t, e.h, ann.Token, 3)
	if frames[1]["type"] != chat.EvReady || frames[2]["type"] != chat.EvUserSlowmodes ||
		len(frames[2]["slowmodes"].([]any)) != 2 {
		t.Fatalf("frames after authenticating = %v", frames)
	}

	// Cleared with 0 or remove: ChannelUpdate names it in clear, and the
	// member may send again at once.
	e.call(t, owner, http.MethodPatch, "/channels/"+cid, map[string]any{"slowmode": 0}, http.StatusOK)
	chEvents.Wait(chat.EvChannelUpdate, func(ev apitest.Event) bool {
		clear, _ := ev.Body["clear"].([]any)
		return ev.Body["id"] == cid && len(clear) == 1 && clear[0] == "Slowmode"
	})
	if got := e.call(t, owner, http.MethodGet, "/channels/"+cid, nil, http.StatusOK).Map(t); got["slowmode"] != nil {
		t.Fatalf("channel after clearing = %v", got)
	}
	if res := send(ann, cid); res.Status != http.StatusOK {
		t.Fatalf("send after clearing = %d %s", res.Status, res.Body)
	}
	e.call(t, owner, http.MethodPatch, "/channels/"+general, map[string]any{"remove": []string{"Slowmode"}}, http.StatusOK)
	if res := send(ann, general); res.Status != http.StatusOK {
		t.Fatalf("send after remove = %d %s", res.Status, res.Body)
	}
	// No slowmode, no UserSlowmodes after Ready.
	if frames := readyFrames(t, e.h, bo.Token, 2); frames[1]["type"] != chat.EvReady {
		t.Fatalf("frames = %v", frames)
	}
}

// readyFrames connects to the events gateway with token and returns the
// first n frames (Authenticated, Ready, ...).
func readyFrames(t *testing.T, h *apitest.Harness, token string, n int) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(h.URL, "http") + "/events?format=json&token=" + token
	c, _, err := websocket.Dial(ctx, url, nil) //nolint:bodyclose // "You never need to close resp.Body yourself" (coder/websocket)
	if err != nil {
		t.Fatalf("dial events: %v", err)
	}
	defer func() { _ = c.CloseNow() }()
	c.SetReadLimit(1 << 24)
	var out []map[string]any
	for len(out) < n {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read frame %d: %v", len(out), err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("frame %s: %v", b, err)
		}
		out = append(out, m)
	}
	return out
}

// auditEntries queries the audit log as u and checks the response.
func auditEntries(t *testing.T, e *env, u *apitest.User, sid, query string) []map[string]any {
	t.Helper()
	res := e.call(t, u, http.MethodGet, "/servers/"+sid+"/audit_logs"+query, nil, http.StatusOK)
	apitest.CheckSchema(t, "AuditLogQueryResponse", res.Body)
	var out []map[string]any
	res.JSON(t, &out)
	return out
}

// reasonCall sends a request as u with an X-Audit-Log-Reason.
func reasonCall(t *testing.T, e *env, u *apitest.User, method, path, reason string, body any, want int) *apitest.Response {
	t.Helper()
	res := e.h.Do(apitest.Request{Method: method, Path: path, Session: u.Token, Body: body,
		Header: map[string]string{"X-Audit-Log-Reason": reason}})
	if res.Status != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, res.Status, res.Body, want)
	}
	return res
}

func TestAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, mod, ann, bo, cy := e.h.NewUser("Owner"), e.h.NewUser("Mod"), e.h.NewUser("Ann"), e.h.NewUser("Bo"), e.h.NewUser("Cy")
	sid, general := e.server(t, owner, "Logged")
	modRole := e.role(t, owner, sid, "Mod", uint64(perm.KickMembers|perm.BanMembers|perm.ManageMessages|perm.TimeoutMembers))
	e.join(t, sid, mod, modRole)
	e.join(t, sid, ann)
	e.join(t, sid, bo)
	e.join(t, sid, cy)

	// Everything the log records, in order.
	type want struct {
		typ    string
		actor  *apitest.User
		fields map[string]any
	}
	var wants []want
	record := func(typ string, actor *apitest.User, fields map[string]any) {
		wants = append(wants, want{typ, actor, fields})
	}
	base := "/servers/" + sid
	record(chat.AuditRoleCreate, owner, map[string]any{"role": modRole, "name": "Mod"}) // e.role above
	record(chat.AuditRoleEdit, owner, map[string]any{"role": modRole})
	e.call(t, owner, http.MethodPatch, base, map[string]any{"name": "Renamed"}, http.StatusOK)
	record(chat.AuditServerEdit, owner, map[string]any{"partial": map[string]any{"name": "Renamed"}})
	e.call(t, owner, http.MethodPut, base+"/permissions/default", map[string]any{"permissions": perm.DefaultServer}, http.StatusOK)
	record(chat.AuditServerEdit, owner, map[string]any{"partial": map[string]any{"default_permissions": float64(perm.DefaultServer)}})
	extra := e.channel(t, owner, sid, "extra")
	record(chat.AuditChannelCreate, owner, map[string]any{"channel": extra, "name": "extra"})
	e.call(t, owner, http.MethodPatch, "/channels/"+extra, map[string]any{"name": "more", "remove": []string{"Description"}}, http.StatusOK)
	record(chat.AuditChannelEdit, owner, map[string]any{"channel": extra, "partial": map[string]any{"name": "more"}})
	role := e.call(t, owner, http.MethodPost, base+"/roles", map[string]any{"name": "Helper"}, http.StatusOK).Map(t)["id"].(string)
	record(chat.AuditRoleCreate, owner, map[string]any{"role": role, "name": "Helper"})
	e.call(t, owner, http.MethodPatch, base+"/roles/"+role, map[string]any{"hoist": true}, http.StatusOK)
	record(chat.AuditRoleEdit, owner, map[string]any{"role": role, "partial": map[string]any{"hoist": true}})
	e.call(t, owner, http.MethodPut, base+"/permissions/"+role, override(uint64(perm.SendMessage), 0), http.StatusOK)
	record(chat.AuditRoleEdit, owner, map[string]any{"role": role})
	e.call(t, owner, http.MethodPut, "/channels/"+extra+"/permissions/"+role, override(uint64(perm.SendMessage), 0), http.StatusOK)
	record(chat.AuditChannelRolePermissionsEdit, owner, map[string]any{"channel": extra, "role": role,
		"permissions": map[string]any{"a": float64(perm.SendMessage), "d": float64(0)}})
	e.call(t, owner, http.MethodPut, "/channels/"+extra+"/permissions/default", override(0, uint64(perm.React)), http.StatusOK)
	record(chat.AuditChannelEdit, owner, map[string]any{"channel": extra})
	e.call(t, owner, http.MethodPatch, base+"/roles/ranks", map[string]any{"ranks": []string{modRole, role}}, http.StatusOK)
	record(chat.AuditRolesReorder, owner, map[string]any{"positions": []any{modRole, role}})
	e.call(t, owner, http.MethodPatch, base+"/members/"+string(ann.ID), map[string]any{"roles": []string{role}}, http.StatusOK)
	record(chat.AuditMemberEdit, owner, map[string]any{"user": string(ann.ID), "partial": map[string]any{"roles": []any{role}}})
	until := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	reasonCall(t, e, mod, http.MethodPatch, base+"/members/"+string(bo.ID), "cool down", map[string]any{"timeout": until}, http.StatusOK)
	record(chat.AuditMemberEdit, mod, map[string]any{"user": string(bo.ID), "reason": "cool down"})
	// Editing oneself is not moderation: not recorded.
	e.call(t, ann, http.MethodPatch, base+"/members/"+string(ann.ID), map[string]any{"nickname": "Annie"}, http.StatusOK)
	reasonCall(t, e, mod, http.MethodDelete, base+"/members/"+string(cy.ID), "spam", nil, http.StatusNoContent)
	record(chat.AuditMemberKick, mod, map[string]any{"user": string(cy.ID), "reason": "spam"})
	e.call(t, mod, http.MethodPut, base+"/bans/"+string(cy.ID), map[string]any{"reason": "more spam"}, http.StatusOK)
	record(chat.AuditBanCreate, mod, map[string]any{"user": string(cy.ID)})
	e.call(t, mod, http.MethodDelete, base+"/bans/"+string(cy.ID), nil, http.StatusNoContent)
	record(chat.AuditBanDelete, mod, map[string]any{"user": string(cy.ID)})

	msg := func(u *apitest.User) string {
		return e.call(t, u, http.MethodPost, "/channels/"+general+"/messages", map[string]any{"content": "hi"}, http.StatusOK).Map(t)["_id"].(string)
	}
	m1, m2, m3, own := msg(ann), msg(ann), msg(ann), msg(mod)
	e.call(t, mod, http.MethodPost, "/channels/"+general+"/messages/"+m1+"/pin", nil, http.StatusNoContent)
	record(chat.AuditMessagePin, mod, map[string]any{"message": m1, "channel": general})
	e.call(t, mod, http.MethodDelete, "/channels/"+general+"/messages/"+m1+"/pin", nil, http.StatusNoContent)
	record(chat.AuditMessageUnpin, mod, map[string]any{"message": m1, "channel": general})
	e.call(t, mod, http.MethodDelete, "/channels/"+general+"/messages/"+m1, nil, http.StatusNoContent)
	record(chat.AuditMessageDelete, mod, map[string]any{"author": string(ann.ID), "channel": general})
	// Deleting one's own message is not moderation.
	e.call(t, mod, http.MethodDelete, "/channels/"+general+"/messages/"+own, nil, http.StatusNoContent)
	e.call(t, mod, http.MethodDelete, "/channels/"+general+"/messages/bulk", map[string]any{"ids": []string{m2, m3}}, http.StatusNoContent)
	record(chat.AuditMessageBulkDelete, mod, map[string]any{"channel": general, "count": float64(2)})

	inv := e.call(t, owner, http.MethodPost, "/channels/"+general+"/invites", nil, http.StatusOK).Map(t)["_id"].(string)
	record(chat.AuditInviteCreate, owner, map[string]any{"invite": inv, "channel": general})
	e.call(t, owner, http.MethodDelete, "/invites/"+inv, nil, http.StatusNoContent)
	record(chat.AuditInviteDelete, owner, map[string]any{"invite": inv, "channel": general})

	emoji := e.upload(t, owner, chat.TagEmojis, "image/png")
	e.call(t, owner, http.MethodPut, "/custom/emoji/"+emoji, map[string]any{"name": "blob", "parent": map[string]any{"type": "Server", "id": sid}}, http.StatusOK)
	record(chat.AuditEmojiCreate, owner, map[string]any{"emoji": emoji, "name": "blob"})
	e.call(t, owner, http.MethodPatch, "/custom/emoji/"+emoji, map[string]any{"name": "blobby"}, http.StatusOK)
	record(chat.AuditEmojiEdit, owner, map[string]any{"emoji": emoji, "name": "blobby"})
	e.call(t, owner, http.MethodDelete, "/custom/emoji/"+emoji, nil, http.StatusNoContent)
	record(chat.AuditEmojiDelete, owner, map[string]any{"emoji": emoji, "name": "blobby"})

	e.call(t, owner, http.MethodDelete, base+"/roles/"+role, nil, http.StatusNoContent)
	record(chat.AuditRoleDelete, owner, map[string]any{"role": role, "name": "Helper"})
	reasonCall(t, e, owner, http.MethodDelete, "/channels/"+extra, "tidy up", nil, http.StatusNoContent)
	record(chat.AuditChannelDelete, owner, map[string]any{"channel": extra, "name": "more", "reason": "tidy up"})

	// The whole log, newest first, exactly the actions taken.
	got := auditEntries(t, e, owner, sid, "?limit=100")
	if len(got) != len(wants) {
		t.Fatalf("%d entries, want %d: %v", len(got), len(wants), got)
	}
	for i, w := range wants {
		entry := got[len(got)-1-i]
		action := entry["action"].(map[string]any)
		if action["type"] != w.typ || entry["user"] != string(w.actor.ID) || entry["server"] != sid {
			t.Errorf("entry %d = %v, want %s by %s", i, entry, w.typ, w.actor.Username)
			continue
		}
		for k, v := range w.fields {
			var have any
			if k == "reason" {
				have = entry["reason"]
			} else if k == "partial" {
				p := action["partial"].(map[string]any)
				for pk, pv := range v.(map[string]any) {
					if !jsonEqual(p[pk], pv) {
						t.Errorf("entry %d (%s) partial.%s = %v, want %v", i, w.typ, pk, p[pk], pv)
					}
				}
				continue
			} else {
				have = action[k]
			}
			if !jsonEqual(have, v) {
				t.Errorf("entry %d (%s) %s = %v, want %v", i, w.typ, k, have, v)
			}
		}
	}

	// Filters: by actor, by type (both spellings), by target, paging.
	byMod := auditEntries(t, e, owner, sid, "?user="+string(mod.ID))
	for _, en := range byMod {
		if en["user"] != string(mod.ID) {
			t.Fatalf("user filter returned %v", en)
		}
	}
	if len(byMod) != 8 {
		t.Fatalf("%d entries by the moderator, want 8", len(byMod))
	}
	kicksAndBans := auditEntries(t, e, owner, sid, "?type=MemberKick&type[]=BanCreate")
	if len(kicksAndBans) != 2 || kicksAndBans[0]["action"].(map[string]any)["type"] != "BanCreate" {
		t.Fatalf("type filter = %v", kicksAndBans)
	}
	aboutCy := auditEntries(t, e, owner, sid, "?target="+string(cy.ID))
	if len(aboutCy) != 3 {
		t.Fatalf("target filter = %v", aboutCy)
	}
	page := auditEntries(t, e, owner, sid, "?limit=2")
	older := auditEntries(t, e, owner, sid, "?limit=2&before="+page[1]["_id"].(string))
	if len(page) != 2 || len(older) != 2 || older[0]["_id"].(string) >= page[1]["_id"].(string) {
		t.Fatalf("paging: %v then %v", page, older)
	}
	newer := auditEntries(t, e, owner, sid, "?after="+older[0]["_id"].(string))
	if len(newer) != 2 {
		t.Fatalf("after = %v", newer)
	}

	// include_users adds the users and members named.
	res := e.call(t, owner, http.MethodGet, base+"/audit_logs?include_users=true&type=MemberKick", nil, http.StatusOK)
	apitest.CheckSchema(t, "AuditLogQueryResponse", res.Body)
	var withUsers struct {
		AuditLogs []map[string]any `json:"audit_logs"`
		Users     []chat.User      `json:"users"`
		Members   []chat.Member    `json:"members"`
	}
	res.JSON(t, &withUsers)
	if len(withUsers.AuditLogs) != 1 || len(withUsers.Users) != 2 || len(withUsers.Members) != 1 ||
		withUsers.Members[0].ID.User != mod.ID {
		t.Fatalf("include_users = %s", res.Body)
	}

	// Bad queries and permissions.
	e.fail(t, owner, http.MethodGet, base+"/audit_logs?limit=0", nil, 422, "FailedValidation")
	e.fail(t, owner, http.MethodGet, base+"/audit_logs?limit=101", nil, 422, "FailedValidation")
	e.fail(t, owner, http.MethodGet, base+"/audit_logs?type=Nope", nil, 422, "FailedValidation")
	e.fail(t, owner, http.MethodGet, base+"/audit_logs?before=short", nil, 422, "FailedValidation")
	e.fail(t, ann, http.MethodGet, base+"/audit_logs", nil, 403, "MissingPermission", "ViewAuditLogs")
	e.fail(t, cy, http.MethodGet, base+"/audit_logs", nil, 404, "NotFound")
	viewer := e.role(t, owner, sid, "Auditor", uint64(perm.ViewAuditLogs))
	e.fail(t, bo, http.MethodGet, base+"/audit_logs", nil, 403, "MissingPermission", "ViewAuditLogs")
	e.call(t, owner, http.MethodPatch, base+"/members/"+string(ann.ID), map[string]any{"roles": []string{viewer}}, http.StatusOK)
	if got := auditEntries(t, e, ann, sid, "?limit=1"); len(got) != 1 {
		t.Fatalf("auditor sees %v", got)
	}

	// A reason longer than 512 bytes is refused and changes nothing.
	before := len(auditEntries(t, e, owner, sid, "?limit=100"))
	res = e.h.Do(apitest.Request{Method: http.MethodPatch, Path: base, Session: owner.Token,
		Body: map[string]any{"name": "Too long"}, Header: map[string]string{"X-Audit-Log-Reason": strings.Repeat("r", 513)}})
	wantError(t, res, http.StatusBadRequest, "HeaderTooLarge")
	if s := e.fetchServer(t, owner, sid); s.Name != "Renamed" {
		t.Fatalf("server renamed by a refused request: %s", s.Name)
	}
	reasonCall(t, e, owner, http.MethodPatch, base, strings.Repeat("r", 512), map[string]any{"name": "Long reason"}, http.StatusOK)
	// A refused change writes no entry (the entry shares its transaction).
	e.fail(t, mod, http.MethodDelete, base+"/members/"+string(owner.ID), nil, 403, "NotElevated")
	if after := len(auditEntries(t, e, owner, sid, "?limit=100")); after != before+1 {
		t.Fatalf("entries %d → %d, want one more", before, after)
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestEditEmoji(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, ann, other := e.h.NewUser("Owner"), e.h.NewUser("Ann"), e.h.NewUser("Other")
	sid, _ := e.server(t, owner, "Emoji")
	e.join(t, sid, ann)
	id := e.upload(t, ann, chat.TagEmojis, "image/png")
	custom := e.role(t, owner, sid, "Custom", uint64(perm.ManageCustomisation))
	e.call(t, owner, http.MethodPatch, "/servers/"+sid+"/members/"+string(ann.ID), map[string]any{"roles": []string{custom}}, http.StatusOK)
	e.call(t, ann, http.MethodPut, "/custom/emoji/"+id, map[string]any{"name": "smile", "parent": map[string]any{"type": "Server", "id": sid}}, http.StatusOK)
	events := e.h.Listen(event.Of(chat.ID(sid)))

	res := e.call(t, ann, http.MethodPatch, "/custom/emoji/"+id, map[string]any{"name": "grin"}, http.StatusOK)
	apitest.CheckSchema(t, "Emoji", res.Body)
	if m := res.Map(t); m["name"] != "grin" || m["_id"] != id {
		t.Fatalf("edited = %s", res.Body)
	}
	ev := events.Wait(chat.EvEmojiUpdate, nil)
	if ev.Body["id"] != id || ev.Body["data"].(map[string]any)["name"] != "grin" || len(ev.Body) != 3 {
		t.Fatalf("EmojiUpdate = %s", ev.Raw)
	}
	if got := e.call(t, nil, http.MethodGet, "/custom/emoji/"+id, nil, http.StatusOK).Map(t); got["name"] != "grin" {
		t.Fatalf("stored = %v", got)
	}

	e.fail(t, ann, http.MethodPatch, "/custom/emoji/"+id, map[string]any{"name": "Not Valid"}, 422, "FailedValidation")
	e.fail(t, ann, http.MethodPatch, "/custom/emoji/"+id, map[string]any{}, 422, "FailedValidation")
	e.fail(t, ann, http.MethodPatch, "/custom/emoji/"+string(chat.NewID()), map[string]any{"name": "x"}, 404, "NotFound")
	e.fail(t, other, http.MethodPatch, "/custom/emoji/"+id, map[string]any{"name": "x"}, 404, "NotFound")
	// Losing ManageCustomisation takes the right away, even from the creator.
	e.call(t, owner, http.MethodPatch, "/servers/"+sid+"/members/"+string(ann.ID), map[string]any{"remove": []string{"Roles"}}, http.StatusOK)
	e.fail(t, ann, http.MethodPatch, "/custom/emoji/"+id, map[string]any{"name": "mine"}, 403, "MissingPermission", "ManageCustomisation")
	// A detached emoji belongs to no server: nobody renames it.
	e.call(t, owner, http.MethodDelete, "/servers/"+sid, nil, http.StatusNoContent)
	e.fail(t, owner, http.MethodPatch, "/custom/emoji/"+id, map[string]any{"name": "gone"}, 404, "NotFound")
}

func TestPronouns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ann, bo := e.h.NewUser("Ann"), e.h.NewUser("Bo")
	sid, _ := e.server(t, ann, "Pronouns")
	e.join(t, sid, bo)
	userEvents := e.h.Listen(event.Of(ann.ID))

	res := e.call(t, ann, http.MethodPatch, "/users/@me", map[string]any{"pronouns": "she/her"}, http.StatusOK)
	apitest.CheckSchema(t, "User", res.Body)
	if res.Map(t)["pronouns"] != "she/her" {
		t.Fatalf("user = %s", res.Body)
	}
	userEvents.Wait(chat.EvUserUpdate, func(ev apitest.Event) bool {
		return ev.Body["data"].(map[string]any)["pronouns"] == "she/her"
	})
	if got := e.call(t, bo, http.MethodGet, "/users/"+string(ann.ID), nil, http.StatusOK).Map(t); got["pronouns"] != "she/her" {
		t.Fatalf("seen by another = %v", got)
	}
	e.call(t, ann, http.MethodPatch, "/users/@me", map[string]any{"remove": []string{"Pronouns"}}, http.StatusOK)
	userEvents.Wait(chat.EvUserUpdate, func(ev apitest.Event) bool {
		clear, _ := ev.Body["clear"].([]any)
		return len(clear) == 1 && clear[0] == "Pronouns"
	})
	if got := e.call(t, ann, http.MethodGet, "/users/@me", nil, http.StatusOK).Map(t); got["pronouns"] != nil {
		t.Fatalf("after clearing = %v", got)
	}

	// Members: own pronouns need ChangeNickname, others' ManageNicknames.
	memberEvents := e.h.Listen(event.Of(chat.ID(sid)))
	res = e.call(t, bo, http.MethodPatch, "/servers/"+sid+"/members/"+string(bo.ID), map[string]any{"pronouns": "they/them"}, http.StatusOK)
	apitest.CheckSchema(t, "Member", res.Body)
	if res.Map(t)["pronouns"] != "they/them" {
		t.Fatalf("member = %s", res.Body)
	}
	memberEvents.Wait(chat.EvServerMemberUpdate, func(ev apitest.Event) bool {
		return ev.Body["data"].(map[string]any)["pronouns"] == "they/them"
	})
	e.fail(t, bo, http.MethodPatch, "/servers/"+sid+"/members/"+string(bo.ID), map[string]any{"pronouns": strings.Repeat("x", 25)}, 422, "FailedValidation")
	e.fail(t, bo, http.MethodPatch, "/servers/"+sid+"/members/"+string(ann.ID), map[string]any{"pronouns": "it/its"}, 403, "MissingPermission", "ManageNicknames")
	e.call(t, bo, http.MethodPatch, "/servers/"+sid+"/members/"+string(bo.ID), map[string]any{"remove": []string{"Pronouns"}}, http.StatusOK)
	if m := e.member(t, sid, bo); m.Pronouns != nil {
		t.Fatalf("member pronouns after remove = %q", *m.Pronouns)
	}
}

func TestRoleIDAndIcon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.h.NewUser("Owner")
	sid, _ := e.server(t, owner, "Roles")
	res := e.call(t, owner, http.MethodPost, "/servers/"+sid+"/roles", map[string]any{"name": "Gold"}, http.StatusOK)
	apitest.CheckSchema(t, "NewRoleResponse", res.Body)
	created := res.Map(t)
	rid := created["id"].(string)
	if created["role"].(map[string]any)["_id"] != rid {
		t.Fatalf("created role = %s", res.Body)
	}
	if r := e.fetchServer(t, owner, sid).Roles[chat.ID(rid)]; r.ID != chat.ID(rid) {
		t.Fatalf("role in server = %+v", r)
	}
	res = e.call(t, owner, http.MethodGet, "/servers/"+sid+"/roles/"+rid, nil, http.StatusOK)
	if res.Map(t)["_id"] != rid {
		t.Fatalf("fetched role = %s", res.Body)
	}

	// Roles stored before roles carried their id get it when read.
	ctx := context.Background()
	s, err := e.h.Server.Store.FetchServer(ctx, chat.ID(sid))
	if err != nil {
		t.Fatal(err)
	}
	old := chat.ID("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	s.Roles[old] = chat.Role{Name: "Legacy", Rank: 9}
	if err := e.h.Server.Store.UpdateServer(ctx, s); err != nil {
		t.Fatal(err)
	}
	if r := e.fetchServer(t, owner, sid).Roles[old]; r.ID != old {
		t.Fatalf("legacy role = %+v", r)
	}

	// Icons: an uploaded icon, replaced, removed; a wrong upload refused.
	events := e.h.Listen(event.Of(chat.ID(sid)))
	icon := e.upload(t, owner, chat.TagIcons, "image/png")
	res = e.call(t, owner, http.MethodPatch, "/servers/"+sid+"/roles/"+rid, map[string]any{"icon": icon}, http.StatusOK)
	apitest.CheckSchema(t, "Role", res.Body)
	if res.Map(t)["icon"].(map[string]any)["_id"] != icon {
		t.Fatalf("role with icon = %s", res.Body)
	}
	events.Wait(chat.EvServerRoleUpdate, func(ev apitest.Event) bool {
		ic, _ := ev.Body["data"].(map[string]any)["icon"].(map[string]any)
		return ev.Body["role_id"] == rid && ic["_id"] == icon
	})
	e.fail(t, owner, http.MethodPatch, "/servers/"+sid+"/roles/"+rid, map[string]any{"icon": icon}, 404, "NotFound") // used already
	avatar := e.upload(t, owner, chat.TagAvatars, "image/png")
	e.fail(t, owner, http.MethodPatch, "/servers/"+sid+"/roles/"+rid, map[string]any{"icon": avatar}, 404, "NotFound")
	next := e.upload(t, owner, chat.TagIcons, "image/png")
	e.call(t, owner, http.MethodPatch, "/servers/"+sid+"/roles/"+rid, map[string]any{"icon": next}, http.StatusOK)
	if rec := fileRecord(t, e.h, icon); rec.Deleted == nil || !*rec.Deleted {
		t.Fatalf("replaced icon not released: %+v", rec)
	}
	e.call(t, owner, http.MethodPatch, "/servers/"+sid+"/roles/"+rid, map[string]any{"remove": []string{"Icon"}}, http.StatusOK)
	events.Wait(chat.EvServerRoleUpdate, func(ev apitest.Event) bool {
		clear, _ := ev.Body["clear"].([]any)
		return len(clear) == 1 && clear[0] == "Icon"
	})
	if r := e.fetchServer(t, owner, sid).Roles[chat.ID(rid)]; r.Icon != nil {
		t.Fatalf("icon after remove = %+v", r.Icon)
	}
	if rec := fileRecord(t, e.h, next); rec.Deleted == nil || !*rec.Deleted {
		t.Fatalf("removed icon not released: %+v", rec)
	}
}

func TestServerOwnershipTransfer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, heir, admin, outsider := e.h.NewUser("Owner"), e.h.NewUser("Heir"), e.h.NewUser("Admin"), e.h.NewUser("Outsider")
	sid, _ := e.server(t, owner, "Kingdom")
	e.join(t, sid, heir)
	adminRole := e.role(t, owner, sid, "Admin", uint64(perm.ManageServer))
	e.join(t, sid, admin, adminRole)
	bot := e.bot(t, owner, "Servant")
	e.join(t, sid, bot)
	setPassword(t, e.h, owner, goodPassword)
	setPassword(t, e.h, admin, goodPassword)
	mfa := func(u *apitest.User) string {
		res := e.h.Do(apitest.Request{Method: http.MethodPut, Path: "/auth/mfa/ticket", Session: u.Token,
			Body: map[string]any{"password": goodPassword}})
		if res.Status != http.StatusOK {
			t.Fatalf("ticket = %d %s", res.Status, res.Body)
		}
		return res.Map(t)["token"].(string)
	}
	transfer := func(u *apitest.User, to chat.ID, ticket string) *apitest.Response {
		h := map[string]string{}
		if ticket != "" {
			h["X-MFA-Ticket"] = ticket
		}
		return e.h.Do(apitest.Request{Method: http.MethodPatch, Path: "/servers/" + sid, Session: u.Token,
			Body: map[string]any{"owner": to}, Header: h})
	}

	wantError(t, transfer(admin, heir.ID, mfa(admin)), 403, "NotOwner")
	wantError(t, transfer(owner, heir.ID, ""), 400, "MissingHeaders")
	wantError(t, transfer(owner, heir.ID, "made-up"), 401, "InvalidToken")
	wantError(t, transfer(owner, outsider.ID, mfa(owner)), 404, "NotFound")
	wantError(t, transfer(owner, bot.ID, mfa(owner)), 400, "IsBot")
	wantError(t, transfer(owner, heir.ID, mfa(admin)), 401, "InvalidToken") // someone else's ticket
	if s := e.fetchServer(t, owner, sid); s.Owner != owner.ID {
		t.Fatalf("owner changed by refused requests: %s", s.Owner)
	}

	events := e.h.Listen(event.Of(chat.ID(sid)))
	tk := mfa(owner)
	res := transfer(owner, heir.ID, tk)
	if res.Status != http.StatusOK {
		t.Fatalf("transfer = %d %s", res.Status, res.Body)
	}
	if res.Map(t)["owner"] != string(heir.ID) {
		t.Fatalf("transferred = %s", res.Body)
	}
	events.Wait(chat.EvServerUpdate, func(ev apitest.Event) bool {
		return ev.Body["data"].(map[string]any)["owner"] == string(heir.ID)
	})
	// The ticket is used up; the new owner holds everything, the old one
	// no longer may transfer.
	wantError(t, transfer(heir, owner.ID, tk), 401, "InvalidToken")
	e.call(t, heir, http.MethodPatch, "/servers/"+sid, map[string]any{"name": "Heir's"}, http.StatusOK)
	wantError(t, transfer(owner, owner.ID, mfa(owner)), 403, "NotOwner")
	entries := auditEntries(t, e, heir, sid, "?type=ServerEdit")
	if len(entries) != 2 || entries[1]["action"].(map[string]any)["partial"].(map[string]any)["owner"] != string(heir.ID) {
		t.Fatalf("audit entries = %v", entries)
	}
}

func TestApproximateMemberCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, ann := e.h.NewUser("Owner"), e.h.NewUser("Ann")
	sid, _ := e.server(t, owner, "Counted")
	if n := e.fetchServer(t, owner, sid).ApproximateMemberCount; n == nil || *n != 1 {
		t.Fatalf("count = %v, want 1", n)
	}
	e.join(t, sid, ann)
	res := e.call(t, owner, http.MethodGet, "/servers/"+sid+"?include_channels=true", nil, http.StatusOK)
	if res.Map(t)["approximate_member_count"] != float64(2) {
		t.Fatalf("with channels = %s", res.Body)
	}
	res = e.call(t, owner, http.MethodPatch, "/servers/"+sid, map[string]any{"name": "Recounted"}, http.StatusOK)
	if res.Map(t)["approximate_member_count"] != float64(2) {
		t.Fatalf("edited = %s", res.Body)
	}
}

func TestRootLimitsAndLegalLinks(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, func(c *config.Config) {
		c.Legal.TermsOfService = "https://example.com/terms"
		c.Limits.Default.MessageLength = 4000
		c.Limits.RestrictServerCreation = true
		c.Files.Limits.Emojis = 123
	})
	res := h.Get("/", "")
	apitest.CheckSchema(t, "RevoltConfig", res.Body)
	var root struct {
		Features struct {
			Limits struct {
				Global  map[string]any `json:"global"`
				NewUser map[string]any `json:"new_user"`
				Default map[string]any `json:"default"`
			} `json:"limits"`
			LegalLinks map[string]any `json:"legal_links"`
		} `json:"features"`
	}
	res.JSON(t, &root)
	f := root.Features
	if f.Limits.Default["message_length"] != float64(4000) || f.Limits.NewUser["message_length"] != float64(2000) ||
		f.Limits.Global["restrict_server_creation"] != true || f.Limits.Global["server_channels"] != float64(200) ||
		f.Limits.Default["file_upload_size_limits"].(map[string]any)["emojis"] != float64(123) {
		t.Fatalf("limits = %+v", f.Limits)
	}
	if f.LegalLinks["terms_of_service"] != "https://example.com/terms" || f.LegalLinks["privacy_policy"] != nil {
		t.Fatalf("legal links = %v", f.LegalLinks)
	}
	// restrict_server_creation is enforced, not only advertised.
	u := h.NewUser("Ann")
	wantError(t, h.Do(apitest.Request{Method: http.MethodPost, Path: "/servers/create", Session: u.Token,
		Body: map[string]any{"name": "Nope"}}), 403, "CantCreateServers")
}

func TestServedDocument(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t)
	var doc struct {
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	h.Get("/openapi.json", "").JSON(t, &doc)
	for path, method := range map[string]string{
		"/servers/{target}/audit_logs":                "get",
		"/custom/emoji/{emoji_id}":                    "patch",
		"/webhooks/{webhook_id}/{token}/{message_id}": "delete",
	} {
		op := doc.Paths[path][method]
		if op == nil || op["x-reference-version"] == nil {
			t.Errorf("%s %s: %v", method, path, op)
		}
	}
	if doc.Paths["/custom/emoji/{emoji_id}"]["get"]["x-reference-version"] != nil {
		t.Error("a contract operation is marked as an addition")
	}
	slowmode, _ := doc.Components.Schemas["DataEditChannel"]["properties"].(map[string]any)["slowmode"].(map[string]any)
	if slowmode["x-reference-version"] != "0.12.0" {
		t.Errorf("DataEditChannel.slowmode = %v", slowmode)
	}
	page := h.Get("/swagger", "")
	if !strings.Contains(string(page.Body), "/servers/{target}/audit_logs") || !strings.Contains(string(page.Body), "added in reference 0.14.0") {
		t.Error("/swagger does not show the additions")
	}
}

// webclient.md item 4: a Message event goes to every receiver, so its
// author carries relationship None, as in the reference; the sender's own
// response too.
func TestMessageAuthorRelationship(t *testing.T) {
	t.Parallel()
	h := apitest.Start(t, apitest.NoRateLimits)
	a, b := h.NewUser("Ann"), h.NewUser("Bo")
	befriend(t, h, a, b)
	dm := wantOK(t, h.Get("/users/"+string(b.ID)+"/dm", a.Token))
	id := dm["_id"].(string)
	ev := h.Listen(event.Of(chat.ID(id)))
	res := h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + id + "/messages",
		Session: a.Token, Body: map[string]any{"content": "hi"}})
	if wantOK(t, res)["user"].(map[string]any)["relationship"] != "None" {
		t.Fatalf("response = %s", res.Body)
	}
	e := ev.Wait(chat.EvMessage, nil)
	if e.Body["user"].(map[string]any)["relationship"] != "None" {
		t.Fatalf("Message = %s", e.Raw)
	}
}

// Webhook changes members make in server channels are in the audit log;
// token holders act as nobody and are not.
func TestAuditLogWebhooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.Webhooks.Enabled = true })
	owner := e.h.NewUser("Owner")
	sid, general := e.server(t, owner, "Hooks")
	res := reasonCall(t, e, owner, http.MethodPost, "/channels/"+general+"/webhooks", "ci", map[string]any{"name": "CI"}, http.StatusOK)
	hook := res.Map(t)
	id, token := hook["id"].(string), hook["token"].(string)
	e.call(t, owner, http.MethodPatch, "/webhooks/"+id, map[string]any{"name": "Builds"}, http.StatusOK)
	e.call(t, nil, http.MethodPatch, "/webhooks/"+id+"/"+token, map[string]any{"name": "By token"}, http.StatusOK)
	e.call(t, owner, http.MethodDelete, "/webhooks/"+id, nil, http.StatusNoContent)
	got := auditEntries(t, e, owner, sid, "?type=WebhookCreate&type=WebhookEdit&type=WebhookDelete")
	if len(got) != 3 {
		t.Fatalf("entries = %v", got)
	}
	for i, w := range []map[string]any{
		{"type": "WebhookDelete", "webhook": id, "channel": general, "name": "By token"},
		{"type": "WebhookEdit", "webhook": id, "channel": general, "partial": map[string]any{"name": "Builds"}},
		{"type": "WebhookCreate", "webhook": id, "channel": general, "name": "CI"},
	} {
		if !jsonEqual(got[i]["action"], w) {
			t.Errorf("entry %d = %v, want %v", i, got[i]["action"], w)
		}
	}
	if got[2]["reason"] != "ci" {
		t.Errorf("reason = %v", got[2]["reason"])
	}
}
