package ratelimit_test

import (
	"strings"
	"testing"

	"ermine/internal/ratelimit"
)

const id = "01J8ZK6Q8V3W4X5Y6Z7A8B9C0D"

func TestResolve(t *testing.T) {
	tests := []struct {
		method, path string
		want         ratelimit.Rule
	}{
		// any /users: 20
		{"GET", "/users/@me", ratelimit.Rule{Bucket: "users", Limit: 20}},
		{"GET", "/users/" + id, ratelimit.Rule{Bucket: "users", Limit: 20}},
		{"GET", "/users/" + id + "/profile", ratelimit.Rule{Bucket: "users", Limit: 20}},
		{"PUT", "/users/" + id + "/friend", ratelimit.Rule{Bucket: "users", Limit: 20}},
		{"GET", "/users", ratelimit.Rule{Bucket: "users", Limit: 20}},
		{"PATCH", "/users", ratelimit.Rule{Bucket: "users", Limit: 20}},
		// PATCH /users/:id: 2, keyed by :id
		{"PATCH", "/users/@me", ratelimit.Rule{Bucket: "user_edit", Resource: "@me", Limit: 2}},
		{"PATCH", "/users/" + id, ratelimit.Rule{Bucket: "user_edit", Resource: id, Limit: 2}},
		{"PATCH", "/users/@me/username", ratelimit.Rule{Bucket: "user_edit", Resource: "@me", Limit: 2}},
		{"patch", "/users/@me", ratelimit.Rule{Bucket: "user_edit", Resource: "@me", Limit: 2}},
		// any /users/:id/default_avatar: 255
		{"GET", "/users/" + id + "/default_avatar", ratelimit.Rule{Bucket: "default_avatar", Limit: 255}},
		{"HEAD", "/users/@me/default_avatar/", ratelimit.Rule{Bucket: "default_avatar", Limit: 255}},
		{"PATCH", "/users/@me/default_avatar", ratelimit.Rule{Bucket: "default_avatar", Limit: 255}},
		// any /bots: 10
		{"GET", "/bots/@me", ratelimit.Rule{Bucket: "bots", Limit: 10}},
		{"POST", "/bots/create", ratelimit.Rule{Bucket: "bots", Limit: 10}},
		{"PATCH", "/bots/" + id, ratelimit.Rule{Bucket: "bots", Limit: 10}},
		{"GET", "/bots", ratelimit.Rule{Bucket: "bots", Limit: 10}},
		// any /channels: 15, keyed by channel id
		{"GET", "/channels/" + id, ratelimit.Rule{Bucket: "channels", Resource: id, Limit: 15}},
		{"POST", "/channels/create", ratelimit.Rule{Bucket: "channels", Resource: "create", Limit: 15}},
		{"GET", "/channels/" + id + "/messages", ratelimit.Rule{Bucket: "channels", Resource: id, Limit: 15}},
		{"PATCH", "/channels/" + id + "/messages/" + id, ratelimit.Rule{Bucket: "channels", Resource: id, Limit: 15}},
		{"POST", "/channels/" + id + "/messages/" + id + "/pin", ratelimit.Rule{Bucket: "channels", Resource: id, Limit: 15}},
		{"POST", "/channels/" + id + "/messages/search", ratelimit.Rule{Bucket: "channels", Resource: id, Limit: 15}},
		{"DELETE", "/channels/" + id + "/messages/bulk", ratelimit.Rule{Bucket: "channels", Resource: id, Limit: 15}},
		{"GET", "/channels", ratelimit.Rule{Bucket: "channels", Limit: 15}},
		// POST /channels/:id/messages: 10, keyed by channel id
		{"POST", "/channels/" + id + "/messages", ratelimit.Rule{Bucket: "messaging", Resource: id, Limit: 10}},
		{"POST", "/channels/" + id + "/messages/", ratelimit.Rule{Bucket: "messaging", Resource: id, Limit: 10}},
		{"post", "/channels/" + id + "/messages", ratelimit.Rule{Bucket: "messaging", Resource: id, Limit: 10}},
		// any /servers: 5, keyed by server id
		{"GET", "/servers/" + id, ratelimit.Rule{Bucket: "servers", Resource: id, Limit: 5}},
		{"POST", "/servers/create", ratelimit.Rule{Bucket: "servers", Resource: "create", Limit: 5}},
		{"PUT", "/servers/" + id + "/roles/" + id, ratelimit.Rule{Bucket: "servers", Resource: id, Limit: 5}},
		{"GET", "/servers", ratelimit.Rule{Bucket: "servers", Limit: 5}},
		// any /auth: 3
		{"POST", "/auth/session/login", ratelimit.Rule{Bucket: "auth", Limit: 3}},
		{"POST", "/auth/account/create", ratelimit.Rule{Bucket: "auth", Limit: 3}},
		{"GET", "/auth/session/all", ratelimit.Rule{Bucket: "auth", Limit: 3}},
		{"PATCH", "/auth/session/" + id, ratelimit.Rule{Bucket: "auth", Limit: 3}},
		// DELETE /auth: 255
		{"DELETE", "/auth/session/all", ratelimit.Rule{Bucket: "auth_delete", Limit: 255}},
		{"DELETE", "/auth/session/" + id, ratelimit.Rule{Bucket: "auth_delete", Limit: 255}},
		{"delete", "/auth/mfa/totp", ratelimit.Rule{Bucket: "auth_delete", Limit: 255}},
		// any /safety: 15
		{"POST", "/safety/reports", ratelimit.Rule{Bucket: "safety", Limit: 15}},
		{"GET", "/safety/snapshot/" + id, ratelimit.Rule{Bucket: "safety", Limit: 15}},
		{"GET", "/safety", ratelimit.Rule{Bucket: "safety", Limit: 15}},
		// any /safety/report: 3
		{"POST", "/safety/report", ratelimit.Rule{Bucket: "safety_report", Limit: 3}},
		{"GET", "/safety/report/", ratelimit.Rule{Bucket: "safety_report", Limit: 3}},
		// any /swagger: 100
		{"GET", "/swagger/index.html", ratelimit.Rule{Bucket: "swagger", Limit: 100}},
		{"GET", "/swagger", ratelimit.Rule{Bucket: "swagger", Limit: 100}},
		// any /*: 20
		{"GET", "/", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/invites/abc", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"PUT", "/sync/settings/set", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"OPTIONS", "/onboard/hello", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/ratelimit", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/userss", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/Users/@me", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/webhooks/" + id + "/token", ratelimit.Rule{Bucket: "any", Limit: 20}},
		// prefixes, slashes and queries
		{"PATCH", "/api/users/@me", ratelimit.Rule{Bucket: "user_edit", Resource: "@me", Limit: 2}},
		{"POST", "/0.8/channels/" + id + "/messages", ratelimit.Rule{Bucket: "messaging", Resource: id, Limit: 10}},
		{"POST", "/api/0.8/servers/create", ratelimit.Rule{Bucket: "servers", Resource: "create", Limit: 5}},
		{"GET", "/api", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/api/", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/0.8", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/0.8/api/users", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/api/api/users", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "/apix/users", ratelimit.Rule{Bucket: "any", Limit: 20}},
		{"GET", "//users//@me", ratelimit.Rule{Bucket: "users", Limit: 20}},
		{"POST", "/channels/" + id + "/messages?nonce=1", ratelimit.Rule{Bucket: "messaging", Resource: id, Limit: 10}},
		{"GET", "/safety/report?x=/users", ratelimit.Rule{Bucket: "safety_report", Limit: 3}},
		{"GET", "users/@me", ratelimit.Rule{Bucket: "users", Limit: 20}},
		// long resources are bounded
		{"GET", "/servers/" + strings.Repeat("x", 1000), ratelimit.Rule{Bucket: "servers", Resource: strings.Repeat("x", 64), Limit: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			if got := ratelimit.Resolve(tc.method, tc.path); got != tc.want {
				t.Errorf("Resolve(%q, %q) = %+v, want %+v", tc.method, tc.path, got, tc.want)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	// The seed's table of calls per window, bucket by bucket.
	tests := []struct {
		bucket string
		want   int
	}{
		{ratelimit.BucketUsers, 20},
		{ratelimit.BucketUserEdit, 2},
		{ratelimit.BucketDefaultAvatar, 255},
		{ratelimit.BucketBots, 10},
		{ratelimit.BucketChannels, 15},
		{ratelimit.BucketMessaging, 10},
		{ratelimit.BucketServers, 5},
		{ratelimit.BucketAuth, 3},
		{ratelimit.BucketAuthDelete, 255},
		{ratelimit.BucketSafety, 15},
		{ratelimit.BucketSafetyReport, 3},
		{ratelimit.BucketSwagger, 100},
		{ratelimit.BucketAny, 20},
		{"upload", 0},
		{"", 0},
	}
	for _, tc := range tests {
		t.Run(tc.bucket, func(t *testing.T) {
			if got := ratelimit.Limit(tc.bucket); got != tc.want {
				t.Errorf("Limit(%q) = %d, want %d", tc.bucket, got, tc.want)
			}
		})
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []struct{ method, path string }{
		{"GET", "/"},
		{"PATCH", "/users/@me/username"},
		{"GET", "/users/x/default_avatar"},
		{"POST", "/api/0.8/channels/x/messages"},
		{"DELETE", "/auth/session/all"},
		{"POST", "/safety/report"},
		{"GET", "/swagger/index.html"},
		{"PUT", "//servers///x/?q"},
		{"", "\x00/\xff"},
	} {
		f.Add(s.method, s.path)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		r := ratelimit.Resolve(method, path)
		if r.Limit <= 0 || r.Limit != ratelimit.Limit(r.Bucket) {
			t.Fatalf("Resolve(%q, %q) = %+v: limit does not match a known bucket", method, path, r)
		}
		if len(r.Resource) > 64 || strings.ContainsAny(r.Resource, "/?") {
			t.Fatalf("Resolve(%q, %q) = %+v: resource is not one bounded path segment", method, path, r)
		}
		keyed := r.Bucket == ratelimit.BucketUserEdit || r.Bucket == ratelimit.BucketMessaging ||
			r.Bucket == ratelimit.BucketChannels || r.Bucket == ratelimit.BucketServers
		if r.Resource != "" && !keyed {
			t.Fatalf("Resolve(%q, %q) = %+v: resource on an unkeyed bucket", method, path, r)
		}
		if r.Resource != "" && !strings.Contains(path, r.Resource) {
			t.Fatalf("Resolve(%q, %q) = %+v: resource not taken from the path", method, path, r)
		}
		if again := ratelimit.Resolve(method, path); again != r {
			t.Fatalf("Resolve(%q, %q) not deterministic: %+v then %+v", method, path, r, again)
		}
	})
}
