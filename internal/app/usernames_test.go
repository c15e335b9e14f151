package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/crypto/argon2"

	"ermine/internal/chat"
	"ermine/internal/store"
)

func TestValidUsername(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"ermine", true},
		{"Stoat_42", true},
		{"a.b-c", true},
		{"ab", true},
		{"Мария", true}, // Cyrillic with letters that have no Latin twin
		{"Ильич", true}, // likewise
		{"山田太郎", true},  // Han
		{"Ελένη", true}, // Greek
		{"José", true},  // Latin with a precomposed accent
		{"a", false},    // too short
		{"abcdefghijklmnopqrstuvwxyz0123456", false}, // 33 characters
		{"two words", false},
		{"emoji🙂", false},
		{"admin", false},
		{"ADMIN", false},
		{"Revolt", false},
		{"my.discord.gg", false},
		{"rvlt.gg", false},
		{"guilded.gg", false},
		{"ｅｒｍｉｎｅ", false},       // full-width
		{"𝐞𝐫𝐦𝐢𝐧𝐞", false},       // mathematical bold
		{"ﬁsh", false},          // ligature
		{"ſtoat", false},        // long s
		{"ᴇʀᴍɪɴᴇ", false},       // small capitals
		{"ermіne", false},       // Cyrillic і among Latin letters
		{"раураl", false},       // Latin look-alike made of Cyrillic and Latin
		{"асе", false},          // only Cyrillic look-alikes: reads as "ace"
		{"ορα", false},          // only Greek look-alikes
		{"e\u0301rmine", false}, // combining mark
		{"١٢٣ab", false},        // non-ASCII digits
		{"zero\u200bwidth", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := validUsername(tc.name)
			if tc.ok && err != nil {
				t.Errorf("validUsername(%q) = %v, want nil", tc.name, err)
			}
			if !tc.ok && !errors.Is(err, chat.ErrInvalidUsername) {
				t.Errorf("validUsername(%q) = %v, want InvalidUsername", tc.name, err)
			}
		})
	}
}

// discStore answers FetchDiscriminators from a fixed list; nothing else
// of the store is used by pickDiscriminator.
type discStore struct {
	store.Store
	used []string
}

func (s discStore) FetchDiscriminators(context.Context, string) ([]string, error) { return s.used, nil }

func TestPickDiscriminator(t *testing.T) {
	ctx := context.Background()
	all := func(except ...string) []string {
		skip := map[string]bool{}
		for _, e := range except {
			skip[e] = true
		}
		var out []string
		for n := 0; n <= 9999; n++ {
			if d := fmt.Sprintf("%04d", n); !skip[d] {
				out = append(out, d)
			}
		}
		return out
	}
	t.Run("keeps a free one", func(t *testing.T) {
		a := &App{store: discStore{used: []string{"0002"}}}
		if d, err := a.pickDiscriminator(ctx, "x", "1234"); err != nil || d != "1234" {
			t.Errorf("pick = %q, %v; want the kept 1234", d, err)
		}
	})
	t.Run("draws when the kept one is taken", func(t *testing.T) {
		a := &App{store: discStore{used: []string{"0777"}}}
		seen := map[string]bool{}
		for i := 0; i < 50; i++ {
			d, err := a.pickDiscriminator(ctx, "x", "0777")
			if err != nil || d == "0777" || len(d) != 4 {
				t.Fatalf("pick = %q, %v", d, err)
			}
			var n int
			fmt.Sscanf(d, "%d", &n)
			if !validDiscriminator(n) {
				t.Fatalf("picked excluded %s", d)
			}
			seen[d] = true
		}
		if len(seen) < 40 {
			t.Errorf("only %d distinct picks out of 50: not random", len(seen))
		}
	})
	t.Run("only excluded ones left", func(t *testing.T) {
		a := &App{store: discStore{used: all("0000", "0001", "9999", "0123", "1234", "1111", "8888", "1488")}}
		if _, err := a.pickDiscriminator(ctx, "x", ""); !errors.Is(err, chat.ErrUsernameTaken) {
			t.Errorf("err = %v, want UsernameTaken", err)
		}
	})
	t.Run("the last free one", func(t *testing.T) {
		a := &App{store: discStore{used: all("4321")}}
		if d, err := a.pickDiscriminator(ctx, "x", ""); err != nil || d != "4321" {
			t.Errorf("pick = %q, %v", d, err)
		}
	})
}

func TestPasswordMatches(t *testing.T) {
	salt := []byte("0123456789abcdef")
	key := argon2.IDKey([]byte("hunter22"), salt, 2, 256, 1, 32)
	b64 := base64.RawStdEncoding.EncodeToString
	good := fmt.Sprintf("$argon2id$v=19$m=256,t=2,p=1$%s$%s", b64(salt), b64(key))
	padded := fmt.Sprintf("$argon2id$v=19$m=256,t=2,p=1$%s$%s", base64.StdEncoding.EncodeToString(salt), base64.StdEncoding.EncodeToString(key))
	cases := []struct {
		name, hash, password string
		want                 bool
	}{
		{"right password", good, "hunter22", true},
		{"padded base64", padded, "hunter22", true},
		{"wrong password", good, "hunter23", false},
		{"other parameters", fmt.Sprintf("$argon2id$v=19$m=256,t=3,p=1$%s$%s", b64(salt), b64(key)), "hunter22", false},
		{"no password", "!", "hunter22", false},
		{"empty", "", "", false},
		{"argon2i", fmt.Sprintf("$argon2i$v=19$m=256,t=2,p=1$%s$%s", b64(salt), b64(key)), "hunter22", false},
		{"bad version", fmt.Sprintf("$argon2id$v=16$m=256,t=2,p=1$%s$%s", b64(salt), b64(key)), "hunter22", false},
		{"bad parameter", fmt.Sprintf("$argon2id$v=19$m=256,t=0,p=1$%s$%s", b64(salt), b64(key)), "hunter22", false},
		{"bad salt", "$argon2id$v=19$m=256,t=2,p=1$!!!$" + b64(key), "hunter22", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := passwordMatches(tc.hash, tc.password); got != tc.want {
				t.Errorf("passwordMatches = %v, want %v", got, tc.want)
			}
		})
	}
}
