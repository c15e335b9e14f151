package chat

import (
	"encoding/json"

	"github.com/vmihailenco/msgpack/v5"
)

// Message flags, as bit values of Message.Flags. The contract names them
// by the numbers 1, 2 and 3; the original server read those as bit
// positions on input and as values on output, so what a client sent was
// not what it read back. Ermine keeps one meaning: the bits 1, 2 and 4.
const (
	MessageFlagSuppressNotifications = 1
	MessageFlagMentionsEveryone      = 2
	MessageFlagMentionsOnline        = 4
)

// SystemMessage is the body of a message the server writes. Type is one of
// text, user_added, user_remove, user_joined, user_left, user_kicked,
// user_banned, channel_renamed, channel_description_changed,
// channel_icon_changed, channel_ownership_changed, message_pinned,
// message_unpinned, call_started; the other fields apply per type.
type SystemMessage struct {
	Type       string `json:"type"`
	Content    string `json:"content,omitempty"`
	ID         ID     `json:"id,omitempty"`
	By         ID     `json:"by,omitempty"`
	Name       string `json:"name,omitempty"`
	From       ID     `json:"from,omitempty"`
	To         ID     `json:"to,omitempty"`
	FinishedAt *Time  `json:"finished_at,omitempty"`
}

// MarshalJSON writes a call_started message as the reference does, with
// finished_at null while the call goes on; other types omit it.
func (s SystemMessage) MarshalJSON() ([]byte, error) {
	type plain SystemMessage
	if s.Type != "call_started" || s.FinishedAt != nil {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		plain
		FinishedAt *Time `json:"finished_at"`
	}{plain: plain(s)})
}

// EncodeMsgpack writes a call_started message with finished_at nil while
// the call goes on, as MarshalJSON does: the events encoder omits empty
// fields, which would drop the key the reference always sends.
func (s SystemMessage) EncodeMsgpack(enc *msgpack.Encoder) error {
	type plain SystemMessage
	if s.Type != "call_started" || s.FinishedAt != nil {
		return enc.Encode(plain(s))
	}
	m := map[string]any{"type": s.Type, "finished_at": nil}
	for k, v := range map[string]string{"content": s.Content, "id": string(s.ID), "by": string(s.By), "name": s.Name, "from": string(s.From), "to": string(s.To)} {
		if v != "" {
			m[k] = v
		}
	}
	return enc.Encode(m)
}

// MessageWebhook names the webhook that sent a message.
type MessageWebhook struct {
	Name   string  `json:"name"`
	Avatar *string `json:"avatar"`
}

// Masquerade overrides the name, avatar or colour shown for a message.
type Masquerade struct {
	Name   *string `json:"name,omitempty"`
	Avatar *string `json:"avatar,omitempty"`
	Colour *string `json:"colour,omitempty"`
}

// Interactions guide how a message may be reacted to.
type Interactions struct {
	Reactions         []string `json:"reactions,omitempty"`
	RestrictReactions bool     `json:"restrict_reactions,omitempty"`
}

// IsDefault reports whether i holds nothing, so it can be omitted.
func (i *Interactions) IsDefault() bool {
	return i == nil || (len(i.Reactions) == 0 && !i.RestrictReactions)
}

// EmbedImage is an image inside a website embed or an image embed.
type EmbedImage struct {
	URL    string `json:"url"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Size   string `json:"size"` // Large or Preview
}

// EmbedVideo is a video inside a website embed or a video embed.
type EmbedVideo struct {
	URL    string `json:"url"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// Special describes remote content of a website embed (YouTube, Twitch ...).
type Special struct {
	Type        string  `json:"type"`
	ID          string  `json:"id,omitempty"`
	Timestamp   *string `json:"timestamp,omitempty"`
	ContentType string  `json:"content_type,omitempty"`
	AlbumID     string  `json:"album_id,omitempty"`
	TrackID     *string `json:"track_id,omitempty"`
	// YouTube, from its oEmbed answer (upstream.md §4).
	CreatorName *string `json:"creator_name,omitempty"`
	CreatorURL  *string `json:"creator_url,omitempty"`
}

// Embed is any embed: Website, Image, Video, Text or None. Type says which
// fields apply.
type Embed struct {
	Type string `json:"type"`

	// Image and Video embeds (the media itself).
	URL    *string `json:"url,omitempty"`
	Width  *int    `json:"width,omitempty"`
	Height *int    `json:"height,omitempty"`
	Size   string  `json:"size,omitempty"`

	// Website
	OriginalURL *string     `json:"original_url,omitempty"`
	Special     *Special    `json:"special,omitempty"`
	Image       *EmbedImage `json:"image,omitempty"`
	Video       *EmbedVideo `json:"video,omitempty"`
	SiteName    *string     `json:"site_name,omitempty"`

	// Website and Text
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	IconURL     *string `json:"icon_url,omitempty"`
	Colour      *string `json:"colour,omitempty"`

	// Text
	Media *File `json:"media,omitempty"`
}

// Message is a message in a channel.
type Message struct {
	ID           ID              `json:"_id"`
	Nonce        *string         `json:"nonce,omitempty"`
	Channel      ID              `json:"channel"`
	Author       ID              `json:"author"`
	User         *User           `json:"user,omitempty"`   // on send and in events only
	Member       *Member         `json:"member,omitempty"` // on send and in events only
	Webhook      *MessageWebhook `json:"webhook,omitempty"`
	Content      *string         `json:"content,omitempty"`
	System       *SystemMessage  `json:"system,omitempty"`
	Attachments  []File          `json:"attachments,omitempty"`
	Edited       *Time           `json:"edited,omitempty"`
	Embeds       []Embed         `json:"embeds,omitempty"`
	Mentions     []ID            `json:"mentions,omitempty"`
	RoleMentions []ID            `json:"role_mentions,omitempty"`
	Replies      []ID            `json:"replies,omitempty"`
	Reactions    map[string][]ID `json:"reactions,omitempty"`
	Interactions *Interactions   `json:"interactions,omitempty"`
	Masquerade   *Masquerade     `json:"masquerade,omitempty"`
	Pinned       *bool           `json:"pinned,omitempty"`
	// Ephemeral is the one user an ephemeral bot message is for (reference
	// pull request #929): only they, and its author, ever see it.
	Ephemeral *ID    `json:"ephemeral,omitempty"`
	Flags     uint32 `json:"flags,omitempty"`
	// AuthorBot says a bot sent the message (the search's author_type);
	// stored with it, never sent.
	AuthorBot bool `json:"-"`
}
