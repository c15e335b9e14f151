package event

import (
	"strings"

	"ermine/internal/chat"
)

// Topics events are published on, as in the reference server:
//
//	<id>   anyone subscribed to that user, server or channel
//	<id>!  only that user's own connections
//	<id>u  member-list updates of a server (bots and Subscribe-ers)
//	<id>!r the connection holding a resumable events stream (its resume id)
//	!access the nodes' caches of what a message send reads (app's access cache)
//
// Only this file knows the suffixes: build topics with Of, Private,
// Members, Resume and Access, and read one with Parse.
const (
	privateSuffix = "!"
	membersSuffix = "u"
	resumeSuffix  = "!r"
	accessTopic   = "!access"
)

// Access is the topic on which a node tells the others which sessions,
// users, channels, servers and memberships it changed, so that they drop
// what they keep of them; only app publishes on it, and no client
// follows it.
func Access() string { return accessTopic }

// Private is the topic of a user's own connections.
func Private(user chat.ID) string { return string(user) + privateSuffix }

// Members is the member-updates topic of a server.
func Members(server chat.ID) string { return string(server) + membersSuffix }

// Resume is the topic of the connection holding the resumable stream id
// (an opaque resume id, not a ULID); only gateways publish on it.
func Resume(id string) string { return id + resumeSuffix }

// Of is the plain topic of a user, server or channel.
func Of(id chat.ID) string { return string(id) }

// Kind tells the topics of one id apart.
type Kind int

// Kinds of topic.
const (
	KindOf      Kind = iota // Of(id)
	KindPrivate             // Private(id)
	KindMembers             // Members(id)
	KindResume              // Resume(id)
	KindAccess              // Access()
)

// Parse returns the kind of a topic and the id it is about, undoing Of,
// Private, Members and Resume; Access has no id. (Ids are upper-case
// ULIDs, so a suffix is never part of one.)
func Parse(topic string) (Kind, chat.ID) {
	if topic == accessTopic {
		return KindAccess, ""
	}
	if id, ok := strings.CutSuffix(topic, privateSuffix); ok {
		return KindPrivate, chat.ID(id)
	}
	if id, ok := strings.CutSuffix(topic, membersSuffix); ok {
		return KindMembers, chat.ID(id)
	}
	if id, ok := strings.CutSuffix(topic, resumeSuffix); ok {
		return KindResume, chat.ID(id)
	}
	return KindOf, chat.ID(topic)
}
