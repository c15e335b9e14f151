package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// usernamePattern is the contract's pattern: letters of any script,
// ASCII digits, underscore, dot and hyphen.
var usernamePattern = regexp.MustCompile(`^(\p{L}|[0-9_.-])+$`)

// reservedUsernames may not be taken by anyone (compared after folding
// look-alike letters, so "аdmin" with a Cyrillic а is refused too).
var reservedUsernames = []string{"admin", "administrator", "ermine", "revolt", "system", "moderator"}

// bannedUsernameParts may not appear anywhere in a username: invite
// links of other platforms, and links and code blocks in general.
var bannedUsernameParts = []string{"```", "discord.gg", "rvlt.gg", "guilded.gg", "http://", "https://"}

// validUsername checks a username against behaviour.md §4.1: 2 to 32
// characters of the contract's pattern, no reserved name, no link, and no
// character chosen to look like another. Names in any one script are
// welcome ("Ласка", "ermine_fan", "山田"); what is refused is what makes
// two different names look the same:
//   - decorated and compatibility forms (𝐚𝐝𝐦𝐢𝐧, ａｄｍｉｎ, ligatures),
//     detected as a change under NFKC normalisation;
//   - invisible letters such as the Hangul fillers;
//   - mixing scripts within one name ("pаypal" with a Cyrillic а), apart
//     from the mixes Japanese, Chinese and Korean writing uses (Unicode
//     TS #39, "highly restrictive");
//   - reserved names spelt with look-alike letters of another script.
//
// Failures are chat.ErrInvalidUsername.
func validUsername(name string) error {
	n := utf8.RuneCountInString(name)
	if n < 2 || n > 32 || !usernamePattern.MatchString(name) {
		return chat.ErrInvalidUsername
	}
	lower := strings.ToLower(name)
	for _, part := range bannedUsernameParts {
		if strings.Contains(lower, part) {
			return chat.ErrInvalidUsername
		}
	}
	if norm.NFKC.String(name) != name {
		return chat.ErrInvalidUsername
	}
	for _, r := range name {
		if unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			return chat.ErrInvalidUsername
		}
	}
	if !singleScript(name) {
		return chat.ErrInvalidUsername
	}
	folded := foldConfusables(lower)
	for _, r := range reservedUsernames {
		if lower == r || folded == r {
			return chat.ErrInvalidUsername
		}
	}
	return nil
}

// scriptsToCheck are the scripts a letter is looked up in, most common
// first; a letter of none of them counts as its own script.
var scriptsToCheck = []string{"Latin", "Cyrillic", "Greek", "Han", "Hiragana", "Katakana", "Hangul",
	"Arabic", "Hebrew", "Devanagari", "Thai", "Armenian", "Georgian", "Bopomofo"}

// cjkMixes are the script sets one name may combine (TS #39 §5.2).
var cjkMixes = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// scriptOf names the script of a letter.
func scriptOf(r rune) string {
	for _, s := range scriptsToCheck {
		if unicode.Is(unicode.Scripts[s], r) {
			return s
		}
	}
	for s, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return s
		}
	}
	return "Unknown"
}

// singleScript reports whether the letters of name come from one script,
// or from one of the combinations in cjkMixes. Digits and _ . - belong
// to every script.
func singleScript(name string) bool {
	seen := map[string]bool{}
	for _, r := range name {
		if !unicode.IsLetter(r) {
			continue
		}
		if s := scriptOf(r); s != "Common" && s != "Inherited" {
			seen[s] = true
		}
	}
	if len(seen) <= 1 {
		return true
	}
	for _, mix := range cjkMixes {
		n := 0
		for _, s := range mix {
			if seen[s] {
				n++
			}
		}
		if n == len(seen) {
			return true
		}
	}
	return false
}

// confusables maps Cyrillic and Greek letters to the Latin letters they
// are drawn like (lower case), for the reserved-name check.
var confusables = strings.NewReplacer(
	"а", "a", "в", "b", "с", "c", "ԁ", "d", "е", "e", "һ", "h", "і", "i", "ј", "j", "к", "k",
	"ӏ", "l", "м", "m", "п", "n", "о", "o", "р", "p", "ԛ", "q", "г", "r", "ѕ", "s", "т", "t",
	"у", "y", "х", "x", "ԝ", "w", "ѵ", "v",
	"α", "a", "β", "b", "ε", "e", "η", "n", "ι", "i", "κ", "k", "ν", "v", "ο", "o", "ρ", "p",
	"τ", "t", "υ", "u", "χ", "x", "γ", "y", "μ", "m",
)

// foldConfusables spells a lower-cased name with the Latin letters its
// look-alike letters resemble.
func foldConfusables(lower string) string { return confusables.Replace(lower) }

// discriminatorAllowed reports whether d may be handed out: 0002 to 9998
// except the memorable ones (0123, 1234, repeated digits, 1488).
func discriminatorAllowed(n int) bool {
	if n < 2 || n > 9998 {
		return false
	}
	switch n {
	case 123, 1234, 1488:
		return false
	}
	return n%1111 != 0
}

// pickDiscriminator chooses the discriminator for username: keep when it
// is not empty and still free for that name (compared case-insensitively),
// else a random free one. When every one is taken it returns
// chat.ErrUsernameTaken.
func (a *App) pickDiscriminator(ctx context.Context, username, keep string) (string, error) {
	return pickDiscriminatorIn(ctx, a.store, username, keep)
}

// pickDiscriminatorIn is pickDiscriminator reading through st, so that a
// transaction can use it.
func pickDiscriminatorIn(ctx context.Context, st store.Store, username, keep string) (string, error) {
	used, err := st.FetchDiscriminators(ctx, username)
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
	var free []int
	for n := 2; n <= 9998; n++ {
		if discriminatorAllowed(n) && !taken[fmt.Sprintf("%04d", n)] {
			free = append(free, n)
		}
	}
	if len(free) == 0 {
		return "", chat.ErrUsernameTaken
	}
	i, err := rand.Int(rand.Reader, big.NewInt(int64(len(free))))
	if err != nil {
		return "", fmt.Errorf("pick discriminator: %w", err)
	}
	return fmt.Sprintf("%04d", free[i.Int64()]), nil
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
