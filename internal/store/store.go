// Package store is Ermine's storage contract: the interfaces every storage
// engine implements, the query types they take, and the two errors they
// return. Business rules live in app, never here; a store only keeps and
// finds what it is given.
//
// Every implementation passes the conformance suite in storetest.
package store

import (
	"context"
	"errors"
	"time"

	"ermine/internal/chat"
)

// ErrNotFound is returned when the object asked for does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write would break a uniqueness rule
// (an id, a token, a username with its discriminator, an email).
var ErrConflict = errors.New("store: conflict")

// ErrInvalid is returned when a write holds text a store cannot keep
// as given: a string holding U+0000 or bytes that are not UTF-8, which
// PostgreSQL rejects and SQLite would store. Reads with such an argument find nothing. The API refuses
// such input before it reaches a store; this keeps every store giving
// the same answer if it ever does.
var ErrInvalid = errors.New("store: text holds NUL or is not UTF-8")

// Writers reports how many writing transactions st commits to good
// effect at once (the group commit of new messages writes that many
// batches at a time): what its ConcurrentWrites method says, else 1.
func Writers(st Store) int {
	if w, ok := st.(interface{ ConcurrentWrites() int }); ok {
		return w.ConcurrentWrites()
	}
	return 1
}

// TouchSessionsMax is how many sessions one TouchSessions call takes.
const TouchSessionsMax = 64

// Store is the whole storage contract.
type Store interface {
	Accounts
	Sessions
	Users
	Relationships
	Bots
	Servers
	Members
	Bans
	Channels
	Messages
	Emojis
	Invites
	Files
	Webhooks
	Unreads
	Settings
	Safety
	Platform
	Voice
	AuditLogs
	Imports

	// InTx runs fn with a Store whose writes commit together when fn
	// returns nil and roll back when it returns an error. Rows fn fetches
	// through the Store it is given are locked against concurrent writers
	// until the transaction ends, so fn may load, change and save safely.
	// Nested calls run inside the outer transaction.
	InTx(ctx context.Context, fn func(Store) error) error

	// Ping checks the store can be reached.
	Ping(ctx context.Context) error
	// Close releases the store's resources.
	Close() error
}

// Accounts keeps login identities.
type Accounts interface {
	// InsertAccount adds an account; ErrConflict if the id or the
	// normalised email exists.
	InsertAccount(ctx context.Context, a *chat.Account) error
	// FetchAccount returns the account with id, or ErrNotFound.
	FetchAccount(ctx context.Context, id chat.ID) (*chat.Account, error)
	// FetchAccountByEmail finds an account by normalised email, or ErrNotFound.
	FetchAccountByEmail(ctx context.Context, normalised string) (*chat.Account, error)
	// FetchAccountByToken finds the account holding a pending verification,
	// password reset or deletion token equal to token, or ErrNotFound.
	FetchAccountByToken(ctx context.Context, token string) (*chat.Account, error)
	// FetchAccountsDueForDeletion returns accounts whose DeleteAfter has passed.
	FetchAccountsDueForDeletion(ctx context.Context, now chat.Time) ([]*chat.Account, error)
	// UpdateAccount replaces a stored account; ErrNotFound if missing,
	// ErrConflict if the new email is taken.
	UpdateAccount(ctx context.Context, a *chat.Account) error
	// DeleteAccount removes an account; ErrNotFound if missing.
	DeleteAccount(ctx context.Context, id chat.ID) error

	// InsertTicket adds an MFA ticket.
	InsertTicket(ctx context.Context, t *chat.MFATicket) error
	// FetchTicketByToken finds a ticket by its token, or ErrNotFound.
	FetchTicketByToken(ctx context.Context, token string) (*chat.MFATicket, error)
	// UpdateTicket replaces a stored ticket.
	UpdateTicket(ctx context.Context, t *chat.MFATicket) error
	// DeleteTicket removes a ticket; ErrNotFound if missing.
	DeleteTicket(ctx context.Context, id chat.ID) error

	// InsertRegistrationInvite adds a registration invite code.
	InsertRegistrationInvite(ctx context.Context, inv *chat.RegistrationInvite) error
	// FetchRegistrationInvite returns the code, or ErrNotFound.
	FetchRegistrationInvite(ctx context.Context, code string) (*chat.RegistrationInvite, error)
	// FetchRegistrationInvites lists every code, oldest first.
	FetchRegistrationInvites(ctx context.Context) ([]*chat.RegistrationInvite, error)
	// UpdateRegistrationInvite replaces a stored code.
	UpdateRegistrationInvite(ctx context.Context, inv *chat.RegistrationInvite) error
	// DeleteRegistrationInvite removes a code; ErrNotFound if missing.
	DeleteRegistrationInvite(ctx context.Context, code string) error
}

// SessionChannel is a session found by token with its user (nil when the
// account has none yet) and one channel with what deciding the user's
// permissions in it needs: Channel is nil when it does not exist, Server
// and Member as FetchChannelAccess returns them.
type SessionChannel struct {
	Session *chat.Session
	User    *chat.User
	Channel *chat.Channel
	Server  *chat.Server
	Member  *chat.Member
}

// SessionReady is a session found by token with its user (nil when the
// account has none yet) and the Ready facts of the user asked for.
type SessionReady struct {
	Session *chat.Session
	User    *chat.User
	Facts   *ReadyFacts
}

// Sessions keeps logged-in devices.
type Sessions interface {
	// InsertSession adds a session; ErrConflict if the token exists.
	InsertSession(ctx context.Context, s *chat.Session) error
	// FetchSession returns the session with id, or ErrNotFound.
	FetchSession(ctx context.Context, id chat.ID) (*chat.Session, error)
	// FetchSessionByToken finds a session by token, or ErrNotFound.
	FetchSessionByToken(ctx context.Context, token string) (*chat.Session, error)
	// FetchSessionUser finds a session by token with its user in one
	// read (the user is nil when the account has none yet), or
	// ErrNotFound: what authenticating every request needs.
	FetchSessionUser(ctx context.Context, token string) (*chat.Session, *chat.User, error)
	// FetchSessionChannelAccess is FetchSessionUser and FetchChannelAccess
	// (for the session's user) in one read, what a message send needs
	// before anything else: ErrNotFound when the session is missing; a
	// missing channel leaves Channel nil.
	FetchSessionChannelAccess(ctx context.Context, token string, channel chat.ID) (*SessionChannel, error)
	// FetchSessionReadyFacts is FetchSessionUser(token) and
	// FetchReadyFacts of the session's user in one read, what an events
	// connection needs before anything else: ErrNotFound when the
	// session is missing.
	FetchSessionReadyFacts(ctx context.Context, token string) (*SessionReady, error)
	// FetchSessions lists a user's sessions, oldest first.
	FetchSessions(ctx context.Context, userID chat.ID) ([]*chat.Session, error)
	// UpdateSession replaces a stored session; ErrNotFound if missing.
	UpdateSession(ctx context.Context, s *chat.Session) error
	// TouchSessions records that the sessions, at most TouchSessionsMax
	// of them, were last seen at seen, in one statement, and changes
	// nothing else of them; sessions that no longer exist are skipped.
	TouchSessions(ctx context.Context, ids []chat.ID, seen chat.Time) error
	// DeleteSession removes a session; ErrNotFound if missing.
	DeleteSession(ctx context.Context, id chat.ID) error
	// DeleteSessions removes all of a user's sessions except the one with
	// id except (none when empty) and returns the ids removed.
	DeleteSessions(ctx context.Context, userID chat.ID, except chat.ID) ([]chat.ID, error)
}

// Users keeps user objects. Relations, relationship and online are not
// stored with the user: see Relationships.
type Users interface {
	// InsertUser adds a user; ErrConflict if the id or the pair
	// (lower-cased username, discriminator) exists.
	InsertUser(ctx context.Context, u *chat.User) error
	// FetchUser returns the user with id, or ErrNotFound.
	FetchUser(ctx context.Context, id chat.ID) (*chat.User, error)
	// FetchUsers returns the users among ids that exist, in no particular order.
	FetchUsers(ctx context.Context, ids []chat.ID) ([]*chat.User, error)
	// FetchUserByUsername finds a user by username (case-insensitive) and
	// discriminator, or ErrNotFound.
	FetchUserByUsername(ctx context.Context, username, discriminator string) (*chat.User, error)
	// FetchDiscriminators returns the discriminators in use with username
	// (case-insensitive).
	FetchDiscriminators(ctx context.Context, username string) ([]string, error)
	// UpdateUser replaces a stored user; ErrNotFound if missing,
	// ErrConflict if its username and discriminator are taken.
	UpdateUser(ctx context.Context, u *chat.User) error
	// DeleteUser removes a user; ErrNotFound if missing.
	DeleteUser(ctx context.Context, id chat.ID) error
}

// Relationships keeps each user's view of other users. A relationship is
// stored per side: (user, other) → status, as user sees other.
type Relationships interface {
	// FetchRelationships lists user's relations.
	FetchRelationships(ctx context.Context, user chat.ID) ([]chat.Relationship, error)
	// FetchRelationship returns user's status toward other (RelationNone
	// when there is none).
	FetchRelationship(ctx context.Context, user, other chat.ID) (chat.RelationshipStatus, error)
	// SetRelationship sets user's status toward other; RelationNone removes it.
	SetRelationship(ctx context.Context, user, other chat.ID, status chat.RelationshipStatus) error
	// FetchReadyFacts reads what a user's Ready is built from with as
	// few reads as the store can: FetchRelationships, FetchPrivateChannels,
	// FetchMemberships, FetchServers and FetchServersChannels of those
	// memberships, FetchServerEmojis of their servers, and
	// FetchPolicyChanges after the time of user's id.
	FetchReadyFacts(ctx context.Context, user chat.ID) (*ReadyFacts, error)
}

// ReadyFacts is what FetchReadyFacts reads about one user, each list in
// the order of the method it stands for.
type ReadyFacts struct {
	Relationships []chat.Relationship
	Private       []*chat.Channel
	Memberships   []*chat.Member
	// Servers are the servers of Memberships that exist, in the order
	// of Memberships.
	Servers []*chat.Server
	// Channels lists the channels of each of Servers, oldest first.
	Channels map[chat.ID][]*chat.Channel
	Emojis   []*chat.Emoji
	// PolicyChanges are those created after the user's id was made.
	PolicyChanges []chat.PolicyChange
}

// Bots keeps bot accounts.
type Bots interface {
	// InsertBot adds a bot; ErrConflict if the id or token exists.
	InsertBot(ctx context.Context, b *chat.Bot) error
	// FetchBot returns the bot with id, or ErrNotFound.
	FetchBot(ctx context.Context, id chat.ID) (*chat.Bot, error)
	// FetchBotByToken finds a bot by token, or ErrNotFound.
	FetchBotByToken(ctx context.Context, token string) (*chat.Bot, error)
	// FetchBotsByOwner lists the bots owned by a user, oldest first.
	FetchBotsByOwner(ctx context.Context, owner chat.ID) ([]*chat.Bot, error)
	// UpdateBot replaces a stored bot; ErrNotFound if missing.
	UpdateBot(ctx context.Context, b *chat.Bot) error
	// DeleteBot removes a bot; ErrNotFound if missing.
	DeleteBot(ctx context.Context, id chat.ID) error
}

// Servers keeps servers.
type Servers interface {
	// InsertServer adds a server; ErrConflict if the id exists.
	InsertServer(ctx context.Context, s *chat.Server) error
	// FetchServer returns the server with id, or ErrNotFound.
	FetchServer(ctx context.Context, id chat.ID) (*chat.Server, error)
	// FetchServers returns the servers among ids that exist.
	FetchServers(ctx context.Context, ids []chat.ID) ([]*chat.Server, error)
	// UpdateServer replaces a stored server; ErrNotFound if missing.
	UpdateServer(ctx context.Context, s *chat.Server) error
	// DeleteServer removes a server and everything that belongs only to it:
	// its channels (with their messages, invites, unreads and webhooks),
	// members, bans, invites and audit log. Its emoji are kept for the app to detach.
	// ErrNotFound if missing.
	DeleteServer(ctx context.Context, id chat.ID) error
}

// Members keeps server memberships.
type Members interface {
	// InsertMember adds a membership; ErrConflict if it exists.
	InsertMember(ctx context.Context, m *chat.Member) error
	// FetchMember returns a membership, or ErrNotFound.
	FetchMember(ctx context.Context, server, user chat.ID) (*chat.Member, error)
	// FetchMembers lists a server's members ordered by user id.
	FetchMembers(ctx context.Context, server chat.ID) ([]*chat.Member, error)
	// FetchMemberships lists a user's memberships, oldest first.
	FetchMemberships(ctx context.Context, user chat.ID) ([]*chat.Member, error)
	// CountMembers counts a server's members.
	CountMembers(ctx context.Context, server chat.ID) (int, error)
	// UpdateMember replaces a stored membership; ErrNotFound if missing.
	UpdateMember(ctx context.Context, m *chat.Member) error
	// DeleteMember removes a membership; ErrNotFound if missing.
	DeleteMember(ctx context.Context, server, user chat.ID) error

	// KeepTimeout remembers until when a departing member is timed out,
	// replacing what was kept for them before.
	KeepTimeout(ctx context.Context, server, user chat.ID, until chat.Time) error
	// TakeTimeout returns and forgets the kept timeout of a user in a
	// server; nil when none was kept.
	TakeTimeout(ctx context.Context, server, user chat.ID) (*chat.Time, error)
}

// Bans keeps server bans.
type Bans interface {
	// InsertBan adds or replaces a ban.
	InsertBan(ctx context.Context, b *chat.ServerBan) error
	// FetchBan returns a ban, or ErrNotFound.
	FetchBan(ctx context.Context, server, user chat.ID) (*chat.ServerBan, error)
	// FetchBans lists a server's bans ordered by user id.
	FetchBans(ctx context.Context, server chat.ID) ([]*chat.ServerBan, error)
	// DeleteBan removes a ban; ErrNotFound if missing.
	DeleteBan(ctx context.Context, server, user chat.ID) error
}

// Channels keeps channels of every type.
type Channels interface {
	// InsertChannel adds a channel; ErrConflict if the id exists, or if a
	// direct message between the same two users or a SavedMessages channel
	// of the same user exists.
	InsertChannel(ctx context.Context, c *chat.Channel) error
	// FetchChannel returns the channel with id, or ErrNotFound.
	FetchChannel(ctx context.Context, id chat.ID) (*chat.Channel, error)
	// FetchChannelAccess returns, in one lookup, a channel with what
	// deciding a user's permissions in it needs: for server channels its
	// server and the user's membership (nil when not a member); for other
	// channels server and member are nil. ErrNotFound if the channel is
	// missing.
	FetchChannelAccess(ctx context.Context, channel, user chat.ID) (*chat.Channel, *chat.Server, *chat.Member, error)
	// FetchChannels returns the channels among ids that exist.
	FetchChannels(ctx context.Context, ids []chat.ID) ([]*chat.Channel, error)
	// FetchServerChannels lists the channels of a server, oldest first.
	FetchServerChannels(ctx context.Context, server chat.ID) ([]*chat.Channel, error)
	// FetchServersChannels lists the channels of each of servers that
	// exists, oldest first: FetchServerChannels for many servers at once.
	// The channels may be shared with other callers and must not be
	// modified.
	FetchServersChannels(ctx context.Context, servers []chat.ID) (map[chat.ID][]*chat.Channel, error)
	// FetchPrivateChannels lists the SavedMessages, direct message and
	// group channels user takes part in, oldest first.
	FetchPrivateChannels(ctx context.Context, user chat.ID) ([]*chat.Channel, error)
	// FetchDirectMessage returns the direct message between a and b, or ErrNotFound.
	FetchDirectMessage(ctx context.Context, a, b chat.ID) (*chat.Channel, error)
	// FetchSavedMessages returns user's SavedMessages channel, or ErrNotFound.
	FetchSavedMessages(ctx context.Context, user chat.ID) (*chat.Channel, error)
	// UpdateChannel replaces a stored channel; ErrNotFound if missing.
	UpdateChannel(ctx context.Context, c *chat.Channel) error
	// SetLastMessage records the last message of a channel, unless a newer
	// one is recorded, without touching its other fields (a direct
	// message's active flag is app's to decide).
	SetLastMessage(ctx context.Context, channel, message chat.ID) error
	// DeleteChannel removes a channel with its messages, invites, unreads
	// and webhooks; ErrNotFound if missing.
	DeleteChannel(ctx context.Context, id chat.ID) error
}

// Messages keeps messages. Fetched messages never carry User or Member.
type Messages interface {
	// InsertMessage adds a message; ErrConflict if the id exists.
	InsertMessage(ctx context.Context, m *chat.Message) error
	// InsertMessages adds several messages at once, all or none;
	// ErrConflict if an id exists. It serves imports and load tests.
	InsertMessages(ctx context.Context, ms []*chat.Message) error
	// FetchMessage returns the message with id, or ErrNotFound.
	FetchMessage(ctx context.Context, id chat.ID) (*chat.Message, error)
	// FetchMessagesByID returns the messages among ids that exist in channel.
	FetchMessagesByID(ctx context.Context, channel chat.ID, ids []chat.ID) ([]*chat.Message, error)
	// FetchMessages returns a page of a channel's history (see MessageQuery).
	FetchMessages(ctx context.Context, q MessageQuery) ([]*chat.Message, error)
	// SearchMessages finds messages of a channel whose content matches
	// q.Query by full-text search (or, with q.Pinned, the pinned ones).
	SearchMessages(ctx context.Context, q MessageSearch) ([]*chat.Message, error)
	// FilterMessages finds a page of messages meeting every condition of
	// f (a server-wide search, a user's mentions); see MessageFilter.
	FilterMessages(ctx context.Context, f MessageFilter) ([]*chat.Message, error)
	// UpdateMessage replaces a stored message; ErrNotFound if missing.
	UpdateMessage(ctx context.Context, m *chat.Message) error
	// DeleteMessage removes a message; ErrNotFound if missing.
	DeleteMessage(ctx context.Context, id chat.ID) error
	// DeleteMessages removes the messages among ids that are in channel and
	// returns the ids removed.
	DeleteMessages(ctx context.Context, channel chat.ID, ids []chat.ID) ([]chat.ID, error)
	// DeleteEphemeralMessages removes up to limit ephemeral messages with
	// ids below before (sent before its time), oldest first, and returns
	// them as they were.
	DeleteEphemeralMessages(ctx context.Context, before chat.ID, limit int) ([]*chat.Message, error)
}

// Sort orders of message queries.
const (
	SortLatest    = "Latest"
	SortOldest    = "Oldest"
	SortRelevance = "Relevance"
)

// MessageQuery selects a page of a channel's history.
type MessageQuery struct {
	Channel chat.ID
	Limit   int     // at most this many; the caller (app) picks the page size
	Before  chat.ID // only ids < Before, when set
	After   chat.ID // only ids > After, when set
	Sort    string  // SortLatest (newest first, the default) or SortOldest
	// Nearby, when set, returns up to Limit/2+1 messages with id >= Nearby
	// (ascending) followed by up to Limit/2+1 older ones (descending);
	// Before, After and Sort are ignored.
	Nearby chat.ID
	// Viewer is who reads: an ephemeral message is found only by the user
	// it is for and its author (none when Viewer is empty).
	Viewer chat.ID
}

// MessageSearch selects messages by full-text match or pinned state.
type MessageSearch struct {
	Channel chat.ID
	Query   string // words to match; empty with Pinned
	Pinned  bool   // only pinned messages
	Limit   int    // at most this many; the caller (app) picks the page size
	Before  chat.ID
	After   chat.ID
	Sort    string  // SortRelevance (default), SortLatest or SortOldest
	Viewer  chat.ID // as in MessageQuery
}

// Author types and components of a MessageFilter.
const (
	AuthorUser    = "User"
	AuthorBot     = "Bot"
	AuthorWebhook = "Webhook"

	ComponentImage = "Image" // an attachment whose metadata is Image
	ComponentVideo = "Video" // an attachment whose metadata is Video
	ComponentLink  = "Link"  // content holding an http(s) URL
	ComponentFile  = "File"  // any attachment
	ComponentEmbed = "Embed" // any embed
)

// MessageFilter selects messages across channels. Every condition set
// must hold; a list holds when any of its values does. Words, authors,
// channels, mentions, author types, components and pinned state are
// answered from the full-text index, so a filter costs what its rarest
// condition's matches cost, not every message.
type MessageFilter struct {
	// Channels limits the messages to these channels; with none, the
	// filter runs over every channel (a user's mentions across the store).
	// A filter without a channel, author, word, mention, component, author
	// type other than all users, or pinned state finds nothing.
	Channels     []chat.ID
	Words        string    // every word in the content (as MessageSearch.Query)
	Authors      []chat.ID // sent by any of these
	Mentions     []chat.ID // mentioning any of these users
	RoleMentions []chat.ID // mentioning any of these roles
	Before       chat.ID   // only ids < Before, when set
	After        chat.ID   // only ids > After, when set
	AuthorTypes  []string  // AuthorUser, AuthorBot, AuthorWebhook
	Components   []string  // ComponentImage, …
	Pinned       *bool     // pinned, or not pinned
	Viewer       chat.ID   // as in MessageQuery
	Offset       int       // skip this many matches
	Limit        int       // then return at most this many
	Ascending    bool      // oldest first; newest first by default
}

// Emojis keeps custom emoji.
type Emojis interface {
	// InsertEmoji adds an emoji; ErrConflict if the id exists.
	InsertEmoji(ctx context.Context, e *chat.Emoji) error
	// FetchEmoji returns the emoji with id, or ErrNotFound.
	FetchEmoji(ctx context.Context, id chat.ID) (*chat.Emoji, error)
	// FetchServerEmojis lists the emoji whose parent is one of servers.
	FetchServerEmojis(ctx context.Context, servers []chat.ID) ([]*chat.Emoji, error)
	// FetchDetachedEmojis lists the emoji whose server was deleted, by id.
	FetchDetachedEmojis(ctx context.Context) ([]*chat.Emoji, error)
	// UpdateEmoji replaces a stored emoji; ErrNotFound if missing.
	UpdateEmoji(ctx context.Context, e *chat.Emoji) error
	// DetachEmojis makes every emoji of server Detached.
	DetachEmojis(ctx context.Context, server chat.ID) error
	// DeleteEmoji removes an emoji; ErrNotFound if missing.
	DeleteEmoji(ctx context.Context, id chat.ID) error
}

// Invites keeps channel invite codes.
type Invites interface {
	// InsertInvite adds an invite; ErrConflict if the code exists.
	InsertInvite(ctx context.Context, inv *chat.Invite) error
	// FetchInvite returns the invite with code, or ErrNotFound.
	FetchInvite(ctx context.Context, code string) (*chat.Invite, error)
	// FetchServerInvites lists a server's invites.
	FetchServerInvites(ctx context.Context, server chat.ID) ([]*chat.Invite, error)
	// FetchChannelInvites lists a channel's invites (a group's, or one
	// channel's of a server), by code.
	FetchChannelInvites(ctx context.Context, channel chat.ID) ([]*chat.Invite, error)
	// DeleteInvite removes an invite; ErrNotFound if missing.
	DeleteInvite(ctx context.Context, code string) error
}

// Files keeps upload records. Bytes live in blob storage under the hash.
type Files interface {
	// InsertFile adds a file record; ErrConflict if the id exists.
	InsertFile(ctx context.Context, f *chat.FileRecord) error
	// FetchFile returns the record with id, or ErrNotFound.
	FetchFile(ctx context.Context, id string) (*chat.FileRecord, error)
	// FetchFileByHash returns one live record with the hash, or ErrNotFound.
	FetchFileByHash(ctx context.Context, hash string) (*chat.FileRecord, error)
	// FetchUnusedFiles returns records never used and uploaded before t.
	FetchUnusedFiles(ctx context.Context, before chat.Time, limit int) ([]*chat.FileRecord, error)
	// FetchDeletedFiles returns records marked deleted (released by what
	// used them), oldest upload first.
	FetchDeletedFiles(ctx context.Context, limit int) ([]*chat.FileRecord, error)
	// CountFilesByHash counts the records (deleted or not) that share hash.
	CountFilesByHash(ctx context.Context, hash string) (int, error)
	// UpdateFile replaces a stored record; ErrNotFound if missing.
	UpdateFile(ctx context.Context, f *chat.FileRecord) error
	// DeleteFile removes a record; ErrNotFound if missing.
	DeleteFile(ctx context.Context, id string) error
}

// Webhooks keeps channel webhooks.
type Webhooks interface {
	// InsertWebhook adds a webhook; ErrConflict if the id exists.
	InsertWebhook(ctx context.Context, w *chat.Webhook) error
	// FetchWebhook returns the webhook with id, or ErrNotFound.
	FetchWebhook(ctx context.Context, id chat.ID) (*chat.Webhook, error)
	// FetchChannelWebhooks lists a channel's webhooks.
	FetchChannelWebhooks(ctx context.Context, channel chat.ID) ([]*chat.Webhook, error)
	// UpdateWebhook replaces a stored webhook; ErrNotFound if missing.
	UpdateWebhook(ctx context.Context, w *chat.Webhook) error
	// DeleteWebhook removes a webhook; ErrNotFound if missing.
	DeleteWebhook(ctx context.Context, id chat.ID) error
}

// Unreads keeps each user's read state per channel.
type Unreads interface {
	// FetchUnreads lists a user's unread entries.
	FetchUnreads(ctx context.Context, user chat.ID) ([]*chat.ChannelUnread, error)
	// AckChannel sets user's last read message in channel and drops the
	// mentions at or before it.
	AckChannel(ctx context.Context, user, channel, message chat.ID) error
	// AckChannels sets the last read message of several channels at once.
	AckChannels(ctx context.Context, user chat.ID, channels []chat.ID, message chat.ID) error
	// AddMentions records that message in channel mentions each of users.
	AddMentions(ctx context.Context, channel, message chat.ID, users []chat.ID) error
}

// Settings keeps synced client settings per user.
type Settings interface {
	// FetchSettings returns the user's settings with the given keys, or
	// all of them when keys is empty.
	FetchSettings(ctx context.Context, user chat.ID, keys []string) (map[string]chat.Setting, error)
	// SetSettings stores settings, replacing the same keys.
	SetSettings(ctx context.Context, user chat.ID, settings map[string]chat.Setting) error
}

// Safety keeps reports and policy changes.
type Safety interface {
	// InsertReport adds a report; ErrConflict if the id exists or if its
	// author already has an open (Created) report about the same item.
	InsertReport(ctx context.Context, r *chat.Report) error
	// FetchReport returns the report with id, or ErrNotFound.
	FetchReport(ctx context.Context, id chat.ID) (*chat.Report, error)
	// FetchReports lists reports newest first (see ReportQuery).
	FetchReports(ctx context.Context, q ReportQuery) ([]*chat.Report, error)
	// UpdateReport replaces a stored report; ErrNotFound if missing,
	// ErrConflict if reopening it would make a second open report.
	UpdateReport(ctx context.Context, r *chat.Report) error
	// InsertPolicyChange adds a policy change.
	InsertPolicyChange(ctx context.Context, p *chat.PolicyChange) error
	// FetchPolicyChanges lists policy changes created after t, oldest first.
	FetchPolicyChanges(ctx context.Context, after chat.Time) ([]chat.PolicyChange, error)
}

// ReportQuery selects a page of reports.
type ReportQuery struct {
	Status string  // only reports with this status, when set
	Author chat.ID // only reports filed by this user, when set
	// Content: only reports of this item (a message, server or user id), when set.
	Content chat.ID
	Before  chat.ID // only ids < Before, when set
	Limit   int     // 1..1000
}

// Platform holds what running an instance needs beyond the chat itself:
// finding users, counting, and events written for a node to publish.
type Platform interface {
	// SearchUsers lists users, ordered by id, whose id equals query or
	// whose username or account email contains it (case-insensitive);
	// every user when query is empty. Only ids > After when After is set.
	SearchUsers(ctx context.Context, q UserSearch) ([]*chat.User, error)
	// SearchServers lists servers, ordered by id, whose id equals query
	// or whose name contains it (case-insensitive); every server when
	// query is empty. Only ids > After when After is set.
	SearchServers(ctx context.Context, q UserSearch) ([]*chat.Server, error)
	// FetchMessagesByAuthor lists the messages written by author, oldest
	// first, with ids > after when after is set, at most limit.
	FetchMessagesByAuthor(ctx context.Context, author, after chat.ID, limit int) ([]*chat.Message, error)
	// FetchFilesByUploader lists the file records uploaded by uploader
	// (deleted ones too) ordered by id, with ids > after, at most limit.
	FetchFilesByUploader(ctx context.Context, uploader chat.ID, after string, limit int) ([]*chat.FileRecord, error)
	// CountObjects counts what the instance holds.
	CountObjects(ctx context.Context) (Counts, error)
	// InsertRelayEvent keeps a frame for a running node to publish on topic.
	InsertRelayEvent(ctx context.Context, topic string, frame []byte) error
	// TakeRelayEvents removes and returns up to limit kept frames, oldest
	// first. Each frame is returned once. Frames kept before since have
	// expired: they are removed and not returned.
	TakeRelayEvents(ctx context.Context, limit int, since time.Time) ([]RelayEvent, error)
	// InsertAdminAction adds an entry to the instance's audit log;
	// ErrConflict if the id exists.
	InsertAdminAction(ctx context.Context, e *chat.AdminAction) error
	// FetchAdminActions lists audit log entries, newest first: only ids <
	// Before when set, only those acting on Target when set, at most Limit.
	FetchAdminActions(ctx context.Context, q AdminActionQuery) ([]*chat.AdminAction, error)
}

// AdminActionQuery selects a page of the instance's audit log.
type AdminActionQuery struct {
	Target string
	Before chat.ID
	Limit  int // 1..1000
}

// UserSearch selects a page of users (or of servers, for SearchServers).
type UserSearch struct {
	Query string
	After chat.ID
	Limit int // 1..1000
}

// Counts are the figures of an instance (chat.InstanceCounts: the admin
// API sends them as they are).
type Counts = chat.InstanceCounts

// RelayEvent is a frame kept for a running node to publish.
type RelayEvent struct {
	Topic string
	Frame []byte
}

// Voice keeps who is connected to voice channels and each channel's call.
type Voice interface {
	// SetVoiceParticipant inserts or replaces a participant, keyed by
	// channel and user.
	SetVoiceParticipant(ctx context.Context, p *chat.VoiceParticipant) error
	// FetchVoiceParticipant returns user's participation in channel, or ErrNotFound.
	FetchVoiceParticipant(ctx context.Context, channel, user chat.ID) (*chat.VoiceParticipant, error)
	// FetchVoiceParticipants lists the participants of channels, by
	// channel then user.
	FetchVoiceParticipants(ctx context.Context, channels []chat.ID) ([]*chat.VoiceParticipant, error)
	// FetchServerVoiceParticipants lists the participants of a server's
	// channels, by channel then user.
	FetchServerVoiceParticipants(ctx context.Context, server chat.ID) ([]*chat.VoiceParticipant, error)
	// FetchUserVoiceParticipants lists the channels user is connected to.
	FetchUserVoiceParticipants(ctx context.Context, user chat.ID) ([]*chat.VoiceParticipant, error)
	// DeleteVoiceParticipant removes user from channel; ErrNotFound if
	// they were not there.
	DeleteVoiceParticipant(ctx context.Context, channel, user chat.ID) error

	// SetVoiceCall inserts or replaces a channel's call.
	SetVoiceCall(ctx context.Context, c *chat.VoiceCall) error
	// FetchVoiceCall returns a channel's call, or ErrNotFound.
	FetchVoiceCall(ctx context.Context, channel chat.ID) (*chat.VoiceCall, error)
	// DeleteVoiceCall removes a channel's call and every participant of
	// the channel; ErrNotFound if there was no call.
	DeleteVoiceCall(ctx context.Context, channel chat.ID) error
}

// AuditLogs keeps each server's record of moderation actions. Entries are
// written inside the transaction of the change they record.
type AuditLogs interface {
	// InsertAuditLogEntry adds an entry; ErrConflict if the id exists.
	InsertAuditLogEntry(ctx context.Context, e *chat.AuditLogEntry) error
	// FetchAuditLogEntries returns a server's entries matching q, newest
	// first.
	FetchAuditLogEntries(ctx context.Context, q AuditLogQuery) ([]*chat.AuditLogEntry, error)
}

// AuditLogQuery selects audit log entries of one server. Empty fields do
// not filter.
type AuditLogQuery struct {
	Server chat.ID
	User   chat.ID  // only actions by this user
	Target string   // only actions on this object (chat.AuditAction.Target)
	Types  []string // only these action types
	Before chat.ID  // only ids < Before
	After  chat.ID  // only ids > After
	Limit  int      // 1..100, decided by app
}

// Imports keeps the marker of an import in progress. While a marker is
// kept the instance is incomplete: the server refuses to start and the
// import command resumes from the marker's checkpoints. There is at most
// one marker.
type Imports interface {
	// FetchImport returns the marker, or ErrNotFound when no import is
	// unfinished.
	FetchImport(ctx context.Context) (*ImportState, error)
	// SetImport creates or replaces the marker. Written in the same
	// transaction as a batch of imported objects, its checkpoints never
	// disagree with what is stored.
	SetImport(ctx context.Context, st *ImportState) error
	// DeleteImport removes the marker (the import finished); removing no
	// marker is not an error.
	DeleteImport(ctx context.Context) error
}

// ImportState is the marker of an unfinished import.
type ImportState struct {
	// Source names the reader ("revolt", "discord", "bulk").
	Source string `json:"source"`
	// Command is the command line that resumes the import, shown to an
	// operator whose server refuses to start.
	Command string `json:"command"`
	// Started is when the first run began.
	Started chat.Time `json:"started"`
	// Done counts, per collection, the source documents handled (written
	// or skipped) and committed; a resumed run skips that many.
	Done map[string]int64 `json:"done"`
	// Complete lists the collections read to their end.
	Complete []string `json:"complete,omitempty"`
	// Imported and Skipped carry the report's counts across runs:
	// collection → count, and collection → reason → count.
	Imported map[string]int64            `json:"imported,omitempty"`
	Skipped  map[string]map[string]int64 `json:"skipped,omitempty"`
}
