// Package discord reads the JSON exports DiscordChatExporter writes: one
// file per channel holding the guild, the channel and its messages. It
// parses them into plain Go types, streaming the messages one at a time
// so a channel of millions of messages is read in bounded memory, and
// maps them onto Ermine's objects (see Convert). Writing them is the
// import pipeline's work.
//
// The shape follows the tool's JSON writer: every field it has written
// in its released versions is read, the ones older versions left out are
// optional, and fields this package does not know are ignored.
package discord

import (
	"strconv"
	"time"
)

// Header is what an export says before its messages.
type Header struct {
	Guild      Guild      `json:"guild"`
	Channel    Channel    `json:"channel"`
	DateRange  *DateRange `json:"dateRange,omitempty"`
	ExportedAt string     `json:"exportedAt,omitempty"`
}

// Guild is the Discord server the channel belongs to.
type Guild struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	IconURL string `json:"iconUrl,omitempty"`
}

// Channel is the exported channel. Threads carry their parent channel's
// name as Category (the tool exports them that way).
type Channel struct {
	ID         string  `json:"id"`
	Type       string  `json:"type"`
	CategoryID string  `json:"categoryId,omitempty"`
	Category   string  `json:"category,omitempty"`
	Name       string  `json:"name"`
	Topic      *string `json:"topic,omitempty"`
	// Position is the channel's place in the guild's list; newer
	// versions of the tool write it.
	Position *int `json:"position,omitempty"`
}

// Channel types the tool writes; threads become channels of their own.
const (
	ChannelText          = "GuildTextChat"
	ChannelNews          = "GuildNews"
	ChannelVoice         = "GuildVoiceChat"
	ChannelStage         = "GuildStageVoice"
	ChannelForum         = "GuildForum"
	ChannelPublicThread  = "GuildPublicThread"
	ChannelPrivateThread = "GuildPrivateThread"
	ChannelNewsThread    = "GuildNewsThread"
	ChannelDirect        = "DirectTextChat"
	ChannelDirectGroup   = "DirectGroupTextChat"
)

// IsThread reports whether the channel is a thread.
func (c *Channel) IsThread() bool {
	switch c.Type {
	case ChannelPublicThread, ChannelPrivateThread, ChannelNewsThread:
		return true
	}
	return false
}

// DateRange is the time filter the export was made with.
type DateRange struct {
	After  *string `json:"after"`
	Before *string `json:"before"`
}

// Message is one exported message.
type Message struct {
	ID                 string       `json:"id"`
	Type               string       `json:"type"`
	Timestamp          string       `json:"timestamp"`
	TimestampEdited    *string      `json:"timestampEdited"`
	CallEndedTimestamp *string      `json:"callEndedTimestamp,omitempty"`
	IsPinned           bool         `json:"isPinned"`
	Content            string       `json:"content"`
	Author             Author       `json:"author"`
	Attachments        []Attachment `json:"attachments"`
	Embeds             []Embed      `json:"embeds"`
	Stickers           []Sticker    `json:"stickers"`
	Reactions          []Reaction   `json:"reactions"`
	Mentions           []Author     `json:"mentions"`
	Reference          *Reference   `json:"reference,omitempty"`
	// InlineEmojis are the emoji the content uses (newer versions of the
	// tool write them); a custom one stands in Content as ":name:".
	InlineEmojis []Emoji `json:"inlineEmojis,omitempty"`
}

// Message types the importer treats specially; the others are kept as
// text when they have content.
const (
	MessageDefault = "Default"
	MessageReply   = "Reply"
	// MessagePinned is the notice "X pinned a message"; Ermine writes its
	// own message_pinned system message.
	MessagePinned = "ChannelPinnedMessage"
	// MessageThreadCreated announces a thread.
	MessageThreadCreated = "ThreadCreated"
	MessageMemberJoin    = "GuildMemberJoin"
	MessageRecipientAdd  = "RecipientAdd"
	MessageRecipientDrop = "RecipientRemove"
	MessageCall          = "Call"
	MessageNameChange    = "ChannelNameChange"
	MessageIconChange    = "ChannelIconChange"
)

// Author is a user as the export shows them: a message's author, a
// mentioned user, or a user who reacted.
type Author struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Discriminator string `json:"discriminator,omitempty"`
	Nickname      string `json:"nickname,omitempty"`
	Color         string `json:"color,omitempty"`
	IsBot         bool   `json:"isBot"`
	AvatarURL     string `json:"avatarUrl,omitempty"`
	Roles         []Role `json:"roles,omitempty"`
}

// Role is one of an author's roles in the guild.
type Role struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Color    string `json:"color,omitempty"`
	Position int    `json:"position"`
}

// Attachment is a file attached to a message. URL is Discord's address,
// or a path relative to the export file when the export was made with
// its media.
type Attachment struct {
	ID            string `json:"id"`
	URL           string `json:"url"`
	FileName      string `json:"fileName"`
	FileSizeBytes int64  `json:"fileSizeBytes"`
}

// Embed is a rich embed (a link preview or a bot's card).
type Embed struct {
	Title       string       `json:"title,omitempty"`
	URL         string       `json:"url,omitempty"`
	Timestamp   *string      `json:"timestamp,omitempty"`
	Description string       `json:"description,omitempty"`
	Color       string       `json:"color,omitempty"`
	Author      *EmbedAuthor `json:"author,omitempty"`
	Thumbnail   *EmbedImage  `json:"thumbnail,omitempty"`
	Image       *EmbedImage  `json:"image,omitempty"`
	Video       *EmbedImage  `json:"video,omitempty"`
	Footer      *EmbedFooter `json:"footer,omitempty"`
	Images      []EmbedImage `json:"images,omitempty"`
	Fields      []EmbedField `json:"fields,omitempty"`
}

// EmbedAuthor is the author line (or provider) of an embed.
type EmbedAuthor struct {
	Name    string `json:"name"`
	URL     string `json:"url,omitempty"`
	IconURL string `json:"iconUrl,omitempty"`
}

// EmbedImage is an image or video of an embed.
type EmbedImage struct {
	URL    string `json:"url,omitempty"`
	Width  *int   `json:"width,omitempty"`
	Height *int   `json:"height,omitempty"`
}

// EmbedFooter is the footer line of an embed.
type EmbedFooter struct {
	Text    string `json:"text"`
	IconURL string `json:"iconUrl,omitempty"`
}

// EmbedField is one name/value field of an embed.
type EmbedField struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	IsInline bool   `json:"isInline"`
}

// Sticker is a sticker sent with a message.
type Sticker struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Format    string `json:"format"`
	SourceURL string `json:"sourceUrl"`
}

// Reaction is one emoji's reactions on a message. Users is written by
// newer versions of the tool (possibly fewer than Count).
type Reaction struct {
	Emoji Emoji    `json:"emoji"`
	Count int      `json:"count"`
	Users []Author `json:"users,omitempty"`
}

// Emoji is a Unicode emoji (ID empty, Name the character) or a custom one.
type Emoji struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Code       string `json:"code,omitempty"`
	IsAnimated bool   `json:"isAnimated"`
	ImageURL   string `json:"imageUrl,omitempty"`
}

// Reference points at the message a reply answers (or a crosspost's
// source).
type Reference struct {
	MessageID *string `json:"messageId"`
	ChannelID *string `json:"channelId"`
	GuildID   *string `json:"guildId"`
}

// discordEpoch is the first millisecond of 2015, where snowflakes count from.
const discordEpoch = 1420070400000

// SnowflakeTime returns the time a Discord id was made, or false when id
// is not a snowflake.
func SnowflakeTime(id string) (time.Time, bool) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(n>>22) + discordEpoch).UTC(), true
}

// ParseTime reads a timestamp the tool wrote (ISO 8601 with an offset,
// with or without fractions of a second).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}
