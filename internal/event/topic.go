package event

import "ermine/internal/chat"

// Topics events are published on, as in the reference server:
//
//	<id>   anyone subscribed to that user, server or channel
//	<id>!  only that user's own connections
//	<id>u  member-list updates of a server (bots and Subscribe-ers)

// Private is the topic of a user's own connections.
func Private(user chat.ID) string { return string(user) + "!" }

// Members is the member-updates topic of a server.
func Members(server chat.ID) string { return string(server) + "u" }

// Of is the plain topic of a user, server or channel.
func Of(id chat.ID) string { return string(id) }
