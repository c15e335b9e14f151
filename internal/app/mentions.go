package app

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"ermine/internal/chat"
)

// mentions is what a message's content mentions.
type mentions struct {
	Users    []chat.ID // <@id>, in order of first appearance
	Roles    []chat.ID // <%id>, in order of first appearance
	Everyone bool      // @everyone
	Online   bool      // @online
}

// parseMentions finds the mentions in content. A backslash escapes the
// character after it, and nothing inside a code span or block (a run of
// backticks closed by a run of the same length) mentions anyone.
func parseMentions(content string) mentions {
	var m mentions
	seen := map[chat.ID]bool{}
	add := func(list *[]chat.ID, id chat.ID) {
		if !seen[id] {
			seen[id] = true
			*list = append(*list, id)
		}
	}
	for i := 0; i < len(content); {
		switch c := content[i]; c {
		case '\\':
			_, size := utf8.DecodeRuneInString(content[min(i+1, len(content)):])
			i += 1 + size
		case '`':
			n := backticks(content[i:])
			if end := closingRun(content[i+n:], n); end >= 0 {
				i += n + end + n
			} else {
				i += n
			}
		case '<':
			if id, kind, ok := tagAt(content[i:]); ok {
				if kind == '@' {
					add(&m.Users, id)
				} else {
					add(&m.Roles, id)
				}
				i += 3 + len(id)
			} else {
				i++
			}
		case '@':
			if word, ok := massMentionAt(content, i); ok {
				if word == "everyone" {
					m.Everyone = true
				} else {
					m.Online = true
				}
				i += 1 + len(word)
			} else {
				i++
			}
		default:
			i++
		}
	}
	return m
}

// backticks counts the backticks s starts with.
func backticks(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// closingRun returns where in s a run of exactly n backticks starts, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		run := backticks(s[i:])
		if run == n {
			return i
		}
		i += run
	}
	return -1
}

// tagAt reads <@ULID> or <%ULID> at the start of s.
func tagAt(s string) (chat.ID, byte, bool) {
	const size = 2 + 26 + 1
	if len(s) < size || (s[1] != '@' && s[1] != '%') || s[size-1] != '>' {
		return "", 0, false
	}
	id := chat.ID(s[2 : size-1])
	if !id.Valid() {
		return "", 0, false
	}
	return id, s[1], true
}

// massMentionAt reads @everyone or @online at content[i], standing as a
// word of its own.
func massMentionAt(content string, i int) (string, bool) {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(content[:i]); isWordRune(r) {
			return "", false
		}
	}
	for _, word := range []string{"everyone", "online"} {
		rest := content[i+1:]
		if !strings.HasPrefix(rest, word) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(rest[len(word):]); len(rest) > len(word) && isWordRune(r) {
			continue
		}
		return word, true
	}
	return "", false
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// contentEmojis lists the custom emoji ids content uses (:ULID:), each
// once, in order of first appearance.
func contentEmojis(content string) []chat.ID {
	const size = 1 + 26 + 1
	var out []chat.ID
	for i := 0; i+size <= len(content); i++ {
		if content[i] != ':' || content[i+size-1] != ':' {
			continue
		}
		id := chat.ID(content[i+1 : i+size-1])
		if id.Valid() && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
