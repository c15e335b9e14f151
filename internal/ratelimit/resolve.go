package ratelimit

import (
	"strings"
	"time"
)

// Window is the length of every bucket's fixed window: a bucket is
// replenished this long after its first request.
const Window = 10 * time.Second

// Bucket names, as reported by Resolve. Each has one limit per Window.
const (
	BucketUserEdit      = "user_edit"      // PATCH /users/:id, keyed by :id
	BucketDefaultAvatar = "default_avatar" // /users/:id/default_avatar
	BucketUsers         = "users"          // other /users requests
	BucketBots          = "bots"           // /bots
	BucketMessaging     = "messaging"      // POST /channels/:id/messages, keyed by :id
	BucketChannels      = "channels"       // other /channels requests, keyed by :id
	BucketServers       = "servers"        // /servers, keyed by :id
	BucketAuthDelete    = "auth_delete"    // DELETE /auth
	BucketAuth          = "auth"           // other /auth requests
	BucketSafetyReport  = "safety_report"  // /safety/report
	BucketSafety        = "safety"         // other /safety requests
	BucketSwagger       = "swagger"        // /swagger
	BucketAny           = "any"            // everything else
)

// maxResource bounds the keyed resource taken from a path segment, so that a
// client sending enormous ids cannot make keys (and the memory holding them)
// arbitrarily large. Real ids are 26-character ULIDs, "@me" or "create";
// truncating longer ones only merges buckets of ids that cannot exist.
const maxResource = 64

// Rule is the bucket a request is counted in.
type Rule struct {
	// Bucket is one of the Bucket* names.
	Bucket string
	// Resource is the id the bucket is keyed by (the channel of a
	// message send, the server, the edited user), or "" when the bucket
	// is shared by all resources.
	Resource string
	// Limit is the number of calls allowed per Window.
	Limit int
}

// Limit returns the calls per Window allowed in bucket, or 0 for a name
// that is not one of the Bucket* constants.
func Limit(bucket string) int {
	switch bucket {
	case BucketUserEdit:
		return 2
	case BucketDefaultAvatar:
		return 255
	case BucketUsers:
		return 20
	case BucketBots:
		return 10
	case BucketMessaging:
		return 10
	case BucketChannels:
		return 15
	case BucketServers:
		return 5
	case BucketAuthDelete:
		return 255
	case BucketAuth:
		return 3
	case BucketSafetyReport:
		return 3
	case BucketSafety:
		return 15
	case BucketSwagger:
		return 100
	case BucketAny:
		return 20
	}
	return 0
}

// Resolve returns the rule for a request. path is the URL path without the
// query (a query, if present, is ignored); a leading /api and then a leading
// /0.8 segment are stripped, empty segments are skipped, and the method is
// compared case-insensitively. The most specific rule wins, so
// PATCH /users/@me is user_edit while GET /users/@me is users, and
// POST /channels/:id/messages is messaging while PATCH of one message is
// channels. Unknown paths fall in the any bucket. Resolve never fails.
func Resolve(method, path string) Rule {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	var seg [4]string // the first segments after the prefixes; enough for every rule
	n := 0
	prefix := 0 // 0: may still strip /api, 1: may still strip /0.8, 2: done
	for rest := path; rest != ""; {
		var s string
		s, rest, _ = strings.Cut(rest, "/")
		if s == "" {
			continue
		}
		if prefix == 0 && n == 0 && s == "api" {
			prefix = 1
			continue
		}
		if prefix < 2 && n == 0 && s == "0.8" {
			prefix = 2
			continue
		}
		prefix = 2
		if n == len(seg) {
			n++ // remember that there are more segments than seg holds
			break
		}
		seg[n] = s
		n++
	}
	post := strings.EqualFold(method, "POST")
	patch := strings.EqualFold(method, "PATCH")
	del := strings.EqualFold(method, "DELETE")

	switch seg[0] {
	case "users":
		switch {
		case n >= 3 && seg[2] == "default_avatar":
			return rule(BucketDefaultAvatar, "")
		case patch && n >= 2:
			return rule(BucketUserEdit, seg[1])
		}
		return rule(BucketUsers, "")
	case "bots":
		return rule(BucketBots, "")
	case "channels":
		if post && n == 3 && seg[2] == "messages" {
			return rule(BucketMessaging, seg[1])
		}
		return rule(BucketChannels, seg[1])
	case "servers":
		return rule(BucketServers, seg[1])
	case "auth":
		if del {
			return rule(BucketAuthDelete, "")
		}
		return rule(BucketAuth, "")
	case "safety":
		if seg[1] == "report" {
			return rule(BucketSafetyReport, "")
		}
		return rule(BucketSafety, "")
	case "swagger":
		return rule(BucketSwagger, "")
	}
	return rule(BucketAny, "")
}

// rule builds a Rule with the bucket's limit and a bounded resource.
func rule(bucket, resource string) Rule {
	if len(resource) > maxResource {
		resource = resource[:maxResource]
	}
	return Rule{Bucket: bucket, Resource: resource, Limit: Limit(bucket)}
}
