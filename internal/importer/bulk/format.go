// Package bulk is Ermine's own export format: a versioned stream of
// line-delimited JSON records (one object per line, {"type": ..., "object":
// ...}, the object in Ermine's stored shapes) with the files' bytes
// alongside, in a tar archive or a directory. Export writes an instance,
// or one server, into it, streaming; Read reads it back for the import
// pipeline. docs/bulk-format.md is the format's description and its
// compatibility promise.
package bulk

import (
	"encoding/json"

	"ermine/internal/chat"
)

// Version is the format version Export writes. Read accepts every
// version up to it; a newer one is refused with a clear message.
const Version = 1

// Record types, in the order Export writes them.
const (
	TypeHeader             = "Header"
	TypeAccount            = "Account"
	TypeUser               = "User"
	TypeSession            = "Session"
	TypeRelationship       = "Relationship"
	TypeSettings           = "Settings"
	TypeBot                = "Bot"
	TypeServer             = "Server"
	TypeChannel            = "Channel"
	TypeMember             = "Member"
	TypeBan                = "Ban"
	TypeEmoji              = "Emoji"
	TypeInvite             = "Invite"
	TypeWebhook            = "Webhook"
	TypeFile               = "File"
	TypeMessage            = "Message"
	TypeUnread             = "Unread"
	TypeAuditLogEntry      = "AuditLogEntry"
	TypeReport             = "Report"
	TypePolicyChange       = "PolicyChange"
	TypeRegistrationInvite = "RegistrationInvite"
	TypeEnd                = "End"
)

// Record is one line of the stream.
type Record struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// Scopes of an export.
const (
	ScopeInstance = "instance"
	ScopeServer   = "server"
)

// Header is the first record.
type Header struct {
	// Version is the format version (Version when written by this Ermine).
	Version int `json:"version"`
	// Generator names the program and its version.
	Generator  string    `json:"generator"`
	ExportedAt chat.Time `json:"exported_at"`
	// Scope is ScopeInstance or ScopeServer; Server is the server's id
	// for ScopeServer.
	Scope  string  `json:"scope"`
	Server chat.ID `json:"server,omitempty"`
}

// End is the last record: how many records of each type came before it,
// so a reader knows the stream is whole.
type End struct {
	Counts map[string]int64 `json:"counts"`
}

// Relationship is one side of a relationship: how User sees Other.
type Relationship struct {
	User   chat.ID                 `json:"user"`
	Other  chat.ID                 `json:"other"`
	Status chat.RelationshipStatus `json:"status"`
}

// Message is a Message record's object: the message as the API sends it
// in history, plus author_bot, which the API keeps to itself (it is what
// a search's author_type Bot finds). A record without author_bot (every
// version 1 export before it was added) means a message not sent by a bot.
type Message struct {
	*chat.Message
	AuthorBot bool `json:"author_bot,omitempty"`
}

// Settings are a user's synced client settings.
type Settings struct {
	User     chat.ID                 `json:"user"`
	Settings map[string]chat.Setting `json:"settings"`
}

// RecordsDir is the directory (inside the archive or the export
// directory) holding the record stream, cut into files of at most
// ChunkSize bytes named NNNNNN.jsonl: read in name order, their
// concatenation is the stream.
const RecordsDir = "records"

// FilesDir holds the files' bytes, each under its SHA-256 (hex).
const FilesDir = "files"

// ChunkSize is the most bytes Export puts in one records file.
const ChunkSize = 8 << 20
