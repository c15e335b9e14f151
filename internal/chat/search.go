package chat

import (
	"fmt"
	"strings"
)

// Search is the body of POST /search: a server-wide or channel search
// with filters (reference branch feat/elasticsearch).
// Rust: v0::DataChannelMessagesSearch
type Search struct {
	Channel *ID            `json:"channel"`
	Server  *ID            `json:"server"`
	Filters *SearchFilters `json:"filters"`
	Offset  *int64         `json:"offset"`
	Limit   *int64         `json:"limit"`
	Sort    *string        `json:"sort"` // "desc" (default) or "asc"; "Desc" and "Asc" too
}

// SearchFilters narrows a Search; every filter given must hold, and a
// list holds when any of its values does.
// Rust: v0::DataChannelMessagesSearchFilters
type SearchFilters struct {
	Content      *string  `json:"content"`
	Author       []ID     `json:"author"`
	Mentions     []ID     `json:"mentions"`
	RoleMentions []ID     `json:"role_mentions"`
	BeforeDate   *Time    `json:"before_date"`
	AfterDate    *Time    `json:"after_date"`
	AuthorType   []string `json:"author_type"` // User, Bot, Webhook
	Pinned       *bool    `json:"pinned"`
	Components   []string `json:"components"` // Image, Video, Link, File, Embed
}

// Search bounds.
const (
	MaxSearchLimit  = 100    // messages in one answer, as in the reference
	MaxSearchOffset = 10_000 // matches skipped: deeper pages cost a walk as long
	maxSearchList   = 100    // ids in one of the filter lists
)

// Validate checks the field rules: exactly one of channel and server is
// the caller's to check (InvalidOperation, as in the reference).
func (d *Search) Validate() error {
	if d.Offset != nil && (*d.Offset < 0 || *d.Offset > MaxSearchOffset) {
		return ErrInvalidBody(fmt.Sprintf("offset: must be between 0 and %d", MaxSearchOffset))
	}
	if d.Limit != nil && *d.Limit < 0 {
		return ErrInvalidBody("limit: must not be negative")
	}
	if d.Sort != nil {
		switch strings.ToLower(*d.Sort) {
		case "asc", "desc":
		default:
			return ErrInvalidBody("sort: must be asc or desc")
		}
	}
	f := d.Filters
	if f == nil {
		return nil
	}
	if err := CheckOptionalLength("filters.content", f.Content, 0, 2000); err != nil {
		return err
	}
	for name, list := range map[string][]ID{"author": f.Author, "mentions": f.Mentions, "role_mentions": f.RoleMentions} {
		if len(list) > maxSearchList {
			return ErrInvalidBody(fmt.Sprintf("filters.%s: at most %d ids", name, maxSearchList))
		}
	}
	for _, t := range f.AuthorType {
		if err := CheckEnum("filters.author_type", t, "User", "Bot", "Webhook"); err != nil {
			return err
		}
	}
	for _, c := range f.Components {
		if err := CheckEnum("filters.components", c, "Image", "Video", "Link", "File", "Embed"); err != nil {
			return err
		}
	}
	return nil
}

// Ascending reports whether the search asks for oldest first.
func (d *Search) Ascending() bool { return d.Sort != nil && strings.EqualFold(*d.Sort, "asc") }
