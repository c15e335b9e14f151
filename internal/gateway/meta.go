package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/vmihailenco/msgpack/v5"

	"ermine/internal/app"
	"ermine/internal/chat"
	"ermine/internal/event"
)

// incoming is one frame from the bus with what routing needs to know of
// it, decoded once per node however many connections receive it.
type incoming struct {
	frame *event.Frame
	// state is the server the event is about, loaded by the first
	// connection that needs it and shared by the others.
	stateOnce sync.Once
	state     *app.ServerState
	stateErr  error

	meta *meta // nil for types routed on the topic alone
	// eventID identifies a UserUpdate that was published on several
	// topics, so a connection following more than one of them gets it
	// once. Empty when the publisher gave none.
	eventID string
}

// meta holds the fields of an event that decide who receives it and how
// subscriptions change. Which fields are set depends on the type.
type meta struct {
	ID          chat.ID       // id or _id, when a string
	Member      chat.MemberID // id, when an object (ServerMemberUpdate)
	ChannelType string
	Server      chat.ID
	Recipients  []chat.ID
	User        chat.ID // user as an id, or user._id when an object
	RoleID      chat.ID
	Data        map[string]json.RawMessage
	Clear       []string
	Status      chat.RelationshipStatus // UserRelationship
	EventType   string                  // Auth
	SessionID   chat.ID                 // Auth
	Exclude     *chat.ID                // Auth exclude_session_id
	UserID      chat.ID                 // Auth, UserPlatformWipe
}

// wireMeta is the JSON shape meta is read from.
type wireMeta struct {
	ID          json.RawMessage            `json:"id"`
	UnderID     chat.ID                    `json:"_id"`
	ChannelType string                     `json:"channel_type"`
	Server      json.RawMessage            `json:"server"` // an id, or a Server in ServerCreate
	Recipients  []chat.ID                  `json:"recipients"`
	User        json.RawMessage            `json:"user"`
	RoleID      chat.ID                    `json:"role_id"`
	Data        map[string]json.RawMessage `json:"data"`
	Clear       []string                   `json:"clear"`
	Status      chat.RelationshipStatus    `json:"status"`
	EventType   string                     `json:"event_type"`
	SessionID   chat.ID                    `json:"session_id"`
	Exclude     *chat.ID                   `json:"exclude_session_id"`
	UserID      chat.ID                    `json:"user_id"`
	EventID     *string                    `json:"event_id"`
}

// routedByContent lists the types whose fields routing reads.
var routedByContent = map[string]bool{
	chat.EvChannelCreate:         true,
	chat.EvChannelUpdate:         true,
	chat.EvChannelDelete:         true,
	chat.EvChannelGroupJoin:      true,
	chat.EvChannelGroupLeave:     true,
	chat.EvServerCreate:          true,
	chat.EvServerUpdate:          true,
	chat.EvServerDelete:          true,
	chat.EvServerMemberUpdate:    true,
	chat.EvServerMemberLeave:     true,
	chat.EvServerRoleUpdate:      true,
	chat.EvServerRoleDelete:      true,
	chat.EvServerRoleRanksUpdate: true,
	chat.EvUserRelationship:      true,
	chat.EvUserUpdate:            true,
	chat.EvAuth:                  true,
	chat.EvUserPlatformWipe:      true,
}

// readIncoming decodes what routing needs of a bus frame. It reports false
// for a frame that cannot be routed (malformed envelope or content).
func readIncoming(msg []byte) (*incoming, bool) {
	f, err := event.Unmarshal(msg)
	if err != nil {
		return nil, false
	}
	in := &incoming{frame: f}
	if !routedByContent[f.Type] {
		return in, true
	}
	var w wireMeta
	if err := json.Unmarshal(f.JSON, &w); err != nil {
		return nil, false
	}
	m := &meta{
		ID: w.UnderID, ChannelType: w.ChannelType, Recipients: w.Recipients,
		RoleID: w.RoleID, Data: w.Data, Clear: w.Clear, Status: w.Status,
		EventType: w.EventType, SessionID: w.SessionID, Exclude: w.Exclude, UserID: w.UserID,
	}
	if len(w.ID) > 0 {
		if w.ID[0] == '{' {
			if err := json.Unmarshal(w.ID, &m.Member); err != nil {
				return nil, false
			}
		} else if err := json.Unmarshal(w.ID, &m.ID); err != nil {
			return nil, false
		}
	}
	if len(w.Server) > 0 && w.Server[0] == '"' {
		if err := json.Unmarshal(w.Server, &m.Server); err != nil {
			return nil, false
		}
	}
	if len(w.User) > 0 {
		if w.User[0] == '{' {
			var u struct {
				ID           chat.ID                 `json:"_id"`
				Relationship chat.RelationshipStatus `json:"relationship"`
			}
			if err := json.Unmarshal(w.User, &u); err != nil {
				return nil, false
			}
			m.User = u.ID
			if m.Status == "" {
				m.Status = u.Relationship
			}
		} else if err := json.Unmarshal(w.User, &m.User); err != nil {
			return nil, false
		}
	}
	in.meta = m
	if (f.Type == chat.EvUserUpdate || f.Type == chat.EvUserPlatformWipe) && w.EventID != nil && *w.EventID != "" {
		in.eventID = *w.EventID
		in.frame = withoutEventID(f, *w.EventID)
	}
	return in, true
}

// withoutEventID returns the frame with its event_id set to null, as
// clients receive it: the id only serves de-duplication here. The id is
// unique, so replacing its encoded form is exact.
func withoutEventID(f *event.Frame, id string) *event.Frame {
	quoted, _ := json.Marshal(id)
	j := bytes.Replace(f.JSON, append([]byte(`"event_id":`), quoted...), []byte(`"event_id":null`), 1)
	packedKey, _ := msgpack.Marshal("event_id")
	packedID, _ := msgpack.Marshal(id)
	m := bytes.Replace(f.Msgpack, slices.Concat(packedKey, packedID), append(packedKey, msgpackNil), 1)
	return &event.Frame{Type: f.Type, JSON: j, Msgpack: m}
}

// has reports whether the event's data carries any of keys.
func (m *meta) has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := m.Data[k]; ok {
			return true
		}
	}
	return false
}

// clears reports whether the event's clear list names any of fields.
func (m *meta) clears(fields ...string) bool {
	for _, f := range fields {
		if slices.Contains(m.Clear, f) {
			return true
		}
	}
	return false
}

// msgpackNil is the msgpack encoding of nil.
const msgpackNil = 0xc0

// serverState returns the stored state of the server the event concerns,
// loading it once for every connection of this node.
func (in *incoming) serverState(ctx context.Context, a *app.App, server chat.ID) (*app.ServerState, error) {
	in.stateOnce.Do(func() { in.state, in.stateErr = a.LoadServerState(ctx, server) })
	return in.state, in.stateErr
}
