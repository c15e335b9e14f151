package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// reservedUsernames may not be taken by anyone (compared lower-cased).
var reservedUsernames = [...]string{"admin", "revolt"}

// forbiddenInUsernames are substrings that make a username look like a
// link or markup.
var forbiddenInUsernames = [...]string{"```", "discord.gg", "rvlt.gg", "guilded.gg", "http://", "https://"}

// decoratedLatin are letters of the Latin script that only imitate plain
// letters (small capitals, dotless and hooked forms). A username holding
// one is refused whatever else it contains.
var decoratedLatin = map[rune]rune{
	'ɑ': 'a', 'ı': 'i', 'ȷ': 'j', 'ɡ': 'g', 'ɩ': 'i', 'ɪ': 'i', 'ʟ': 'l', 'ɴ': 'n', 'ʀ': 'r', 'ʏ': 'y',
	'ʙ': 'b', 'ɢ': 'g', 'ʜ': 'h', 'ᴀ': 'a', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ᴊ': 'j', 'ᴋ': 'k',
	'ᴍ': 'm', 'ᴏ': 'o', 'ᴘ': 'p', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z', 'ꜰ': 'f', 'ꜱ': 's',
	'ɒ': 'a', 'ꞵ': 'b', 'ɵ': 'o',
}

// lookalikes are letters of other scripts drawn like a plain Latin
// letter. They are fine in a name written in their own script, but not
// mixed with Latin letters, nor in a name made only of them (which reads
// as a Latin name to everyone).
var lookalikes = map[rune]rune{
	// Cyrillic
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i',
	'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ӏ': 'l', 'ү': 'y',
	// Greek
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ρ': 'p', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'χ': 'x',
	// Armenian
	'օ': 'o', 'ս': 'u', 'հ': 'h', 'ո': 'n', 'ց': 'g', 'զ': 'q',
}

// validUsername checks a username against behaviour.md §4.1: 2 to 32
// characters, letters of any script, ASCII digits, '_', '.' and '-';
// not a reserved name; no link-like substrings; and nothing that
// imitates another name: no compatibility forms (full-width or
// mathematical letters, ligatures), no decorated Latin letters, and no
// lookalike letters of other scripts mixed with Latin or making up the
// whole name. It returns chat.ErrInvalidUsername.
//
// The original interface also refuses every non-Latin letter that has a
// Latin lookalike, which turns away most Cyrillic and Greek names; Ermine
// refuses only the mixtures and whole-name imitations, so that names in
// other scripts stay possible (seed part 2: Unicode usernames).
func validUsername(name string) error {
	n := utf8.RuneCountInString(name)
	if n < 2 || n > 32 || !chat.UsernamePattern.MatchString(name) {
		return chat.ErrInvalidUsername
	}
	lower := strings.ToLower(name)
	for _, r := range reservedUsernames {
		if lower == r {
			return chat.ErrInvalidUsername
		}
	}
	for _, f := range forbiddenInUsernames {
		if strings.Contains(lower, f) {
			return chat.ErrInvalidUsername
		}
	}
	if norm.NFKC.String(lower) != lower {
		return chat.ErrInvalidUsername
	}
	latin, similar, letters := 0, 0, 0
	for _, r := range lower {
		if _, ok := decoratedLatin[r]; ok {
			return chat.ErrInvalidUsername
		}
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		switch {
		case r < utf8.RuneSelf:
			latin++
		case lookalikes[r] != 0:
			similar++
		}
	}
	if similar > 0 && (latin > 0 || similar == letters) {
		return chat.ErrInvalidUsername
	}
	return nil
}

// discriminatorExcluded are discriminators never handed out.
var discriminatorExcluded = map[int]bool{
	123: true, 1234: true, 1111: true, 2222: true, 3333: true, 4444: true,
	5555: true, 6666: true, 7777: true, 8888: true, 1488: true,
}

// Discriminators are handed out from this range, both ends included.
const (
	discriminatorMin = 2
	discriminatorMax = 9998
)

// validDiscriminator reports whether d may be handed out.
func validDiscriminator(n int) bool {
	return n >= discriminatorMin && n <= discriminatorMax && !discriminatorExcluded[n]
}

// pickDiscriminator chooses a discriminator for username: keep when it is
// not empty and still free for that name, else one chosen at random among
// the free ones. chat.ErrUsernameTaken when none is free.
func (a *App) pickDiscriminator(ctx context.Context, username, keep string) (string, error) {
	used, err := a.store.FetchDiscriminators(ctx, username)
	if err != nil {
		return "", dbError("fetch discriminators", err)
	}
	taken := make(map[string]bool, len(used))
	for _, d := range used {
		taken[d] = true
	}
	if keep != "" && !taken[keep] {
		return keep, nil
	}
	var free []string
	for n := discriminatorMin; n <= discriminatorMax; n++ {
		d := fmt.Sprintf("%04d", n)
		if validDiscriminator(n) && !taken[d] {
			free = append(free, d)
		}
	}
	if len(free) == 0 {
		return "", chat.ErrUsernameTaken
	}
	i, err := rand.Int(rand.Reader, big.NewInt(int64(len(free))))
	if err != nil {
		return "", fmt.Errorf("pick discriminator: %w", err)
	}
	return free[i.Int64()], nil
}

// conflictAsTaken turns a store conflict on a username write into
// UsernameTaken (another user took the same name and discriminator
// between the pick and the write).
func conflictAsTaken(op string, err error) error {
	if errors.Is(err, store.ErrConflict) {
		return chat.ErrUsernameTaken.Wrap(err)
	}
	return dbError(op, err)
}
