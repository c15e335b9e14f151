package chat

import "fmt"

// Message sort orders of history queries and searches.
const (
	SortRelevance = "Relevance"
	SortLatest    = "Latest"
	SortOldest    = "Oldest"
)

// ReplyIntent names a message to reply to.
// Contract: ReplyIntent
type ReplyIntent struct {
	ID ID `json:"id"`
	// Mention adds the replied message's author to the mentions.
	Mention bool `json:"mention"`
	// FailIfNotExists, true when absent, makes a missing message an error
	// instead of a dropped reply.
	FailIfNotExists *bool `json:"fail_if_not_exists"`
}

// SendableEmbed is a text embed as a sender gives it. Media is the id of
// a file uploaded under the attachments tag.
// Contract: SendableEmbed
type SendableEmbed struct {
	IconURL     *string `json:"icon_url"`
	URL         *string `json:"url"`
	Title       *string `json:"title"`
	Description *string `json:"description"`
	Media       *string `json:"media"`
	Colour      *string `json:"colour"`
}

// Validate checks the embed's field rules.
func (e *SendableEmbed) Validate(field string) error {
	return FirstError(
		CheckOptionalLength(field+".icon_url", e.IconURL, 1, 256),
		CheckOptionalLength(field+".url", e.URL, 1, 256),
		CheckOptionalLength(field+".title", e.Title, 1, 100),
		CheckOptionalLength(field+".description", e.Description, 1, 2000),
		checkColour(field+".colour", e.Colour),
	)
}

// checkColour checks an optional colour against the colour rule.
func checkColour(field string, s *string) error {
	if s != nil && !ValidColour(*s) {
		return ErrInvalidBody(field + ": not a valid colour")
	}
	return nil
}

// validateEmbeds checks each embed of a list.
func validateEmbeds(embeds []SendableEmbed) error {
	for i := range embeds {
		if err := embeds[i].Validate(fmt.Sprintf("embeds[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the masquerade's field rules.
func (m *Masquerade) Validate() error {
	return FirstError(
		CheckOptionalLength("masquerade.name", m.Name, 1, 32),
		CheckOptionalLength("masquerade.avatar", m.Avatar, 1, 256),
		checkColour("masquerade.colour", m.Colour),
	)
}

// MessageSend is the body of POST /channels/{target}/messages.
// Contract: DataMessageSend
type MessageSend struct {
	// Nonce is the deprecated duplicate guard; Idempotency-Key replaces it.
	Nonce        *string         `json:"nonce"`
	Content      *string         `json:"content"`
	Attachments  []string        `json:"attachments"`
	Replies      []ReplyIntent   `json:"replies"`
	Embeds       []SendableEmbed `json:"embeds"`
	Masquerade   *Masquerade     `json:"masquerade"`
	Interactions *Interactions   `json:"interactions"`
	Flags        *uint32         `json:"flags"`
	// Ephemeral makes a bot's message visible to this one user only
	// (reference pull request #929).
	Ephemeral *ID `json:"ephemeral"`
}

// Validate checks the contract's field rules. Limits that depend on the
// sender (counts, the byte length of content) are the app's to check.
func (d *MessageSend) Validate() error {
	if err := FirstError(
		CheckOptionalLength("nonce", d.Nonce, 1, 64),
		CheckOptionalLength("content", d.Content, 0, 2000),
		validateEmbeds(d.Embeds),
	); err != nil {
		return err
	}
	for i, r := range d.Replies {
		if r.ID == "" {
			return ErrInvalidBody(fmt.Sprintf("replies[%d].id: required", i))
		}
	}
	if d.Masquerade != nil {
		if err := d.Masquerade.Validate(); err != nil {
			return err
		}
	}
	if d.Interactions != nil {
		seen := make(map[string]bool, len(d.Interactions.Reactions))
		for _, r := range d.Interactions.Reactions {
			if seen[r] {
				return ErrInvalidBody("interactions.reactions: items must be unique")
			}
			seen[r] = true
		}
	}
	return nil
}

// MessageEdit is the body of PATCH /channels/{target}/messages/{msg}.
// Embeds, when present (even empty), replace the message's embeds.
// Contract: DataEditMessage
type MessageEdit struct {
	Content *string          `json:"content"`
	Embeds  *[]SendableEmbed `json:"embeds"`
}

// Validate checks the contract's field rules.
func (d *MessageEdit) Validate() error {
	if err := CheckOptionalLength("content", d.Content, 1, 2000); err != nil {
		return err
	}
	if d.Embeds != nil {
		if err := CheckCount("embeds", len(*d.Embeds), 0, 10); err != nil {
			return err
		}
		return validateEmbeds(*d.Embeds)
	}
	return nil
}

// BulkDelete is the body of DELETE /channels/{target}/messages/bulk.
// Contract: OptionsBulkDelete
type BulkDelete struct {
	IDs []ID `json:"ids"`
}

// Validate checks the contract's field rules.
func (d *BulkDelete) Validate() error {
	return CheckCount("ids", len(d.IDs), 1, 100)
}

// MessageQuery holds the query parameters of GET /channels/{target}/messages.
// Contract: parameters of message_query_query
type MessageQuery struct {
	Limit        *int64
	Before       *ID
	After        *ID
	Sort         *string
	Nearby       *ID
	IncludeUsers bool
}

// Validate checks the contract's parameter rules.
func (q *MessageQuery) Validate() error {
	return FirstError(
		checkLimit(q.Limit),
		checkMessageID("before", q.Before),
		checkMessageID("after", q.After),
		checkMessageID("nearby", q.Nearby),
		checkSort(q.Sort),
	)
}

// MessageSearch is the body of POST /channels/{target}/search: words to
// find, or only the pinned messages.
// Contract: DataMessageSearch
type MessageSearch struct {
	Query        *string `json:"query"`
	Pinned       *bool   `json:"pinned"`
	Limit        *int64  `json:"limit"`
	Before       *ID     `json:"before"`
	After        *ID     `json:"after"`
	Sort         *string `json:"sort"`
	IncludeUsers *bool   `json:"include_users"`
}

// Validate checks the contract's field rules and that exactly one of
// query and pinned is given.
func (d *MessageSearch) Validate() error {
	if err := FirstError(
		CheckOptionalLength("query", d.Query, 1, 64),
		checkLimit(d.Limit),
		checkMessageID("before", d.Before),
		checkMessageID("after", d.After),
		checkSort(d.Sort),
	); err != nil {
		return err
	}
	pinned := d.Pinned != nil && *d.Pinned
	switch {
	case d.Query != nil && pinned:
		return ErrInvalidBody("query: cannot be combined with pinned")
	case d.Query == nil && !pinned:
		return ErrInvalidBody("query: required unless pinned is true")
	}
	return nil
}

// Pages of message history (GET /channels/{target}/messages and
// POST /channels/{target}/search): the most a request may ask for, and
// what it gets when it does not say.
const (
	MaxMessagePage     = 100
	DefaultMessagePage = 50
)

// PageSize is the number of messages a query's limit asks for: the
// default when none is given. Validate has checked the range.
func PageSize(limit *int64) int {
	if limit == nil {
		return DefaultMessagePage
	}
	return int(*limit)
}

func checkLimit(n *int64) error {
	if n != nil && (*n < 1 || *n > MaxMessagePage) {
		return ErrInvalidBody(fmt.Sprintf("limit: must be between 1 and %d", MaxMessagePage))
	}
	return nil
}

func checkMessageID(field string, id *ID) error {
	if id != nil && len(*id) != 26 {
		return ErrInvalidBody(field + ": must be 26 characters")
	}
	return nil
}

func checkSort(s *string) error {
	if s == nil {
		return nil
	}
	return CheckEnum("sort", *s, SortRelevance, SortLatest, SortOldest)
}

// BulkMessages is a page of messages with, when asked for, the users
// (and in server channels the members) they involve. Without users it
// travels as the bare array of messages.
// Contract: BulkMessageResponse
type BulkMessages struct {
	Messages []*Message `json:"messages"`
	Users    []*User    `json:"users"`
	Members  []*Member  `json:"members,omitempty"`
	// WithUsers says the object form was asked for.
	WithUsers bool `json:"-"`
}
