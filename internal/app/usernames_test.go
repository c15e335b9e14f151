package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

func TestValidUsername(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"stoat", true},
		{"Ласка", true},
		{"горностай_42", true},
		{"山田たろう", true},
		{"ヤマダ", true},
		{"김민준", true},
		{"Ζωή", true},
		{"o.k-name_9", true},
		{"Zoë", true},
		{"ab", true},
		{strings.Repeat("x", 32), true},
		{"a", false},
		{strings.Repeat("x", 33), false},
		{"with space", false},
		{"emoji😀", false},
		{"e\u0301", false}, // a combining mark is not a letter
		{"admin", false},
		{"ADMIN", false},
		{"Revolt", false},
		{"Ermine", false}, // reserved, like admin
		{"аdmin", false},  // Cyrillic а among Latin letters
		{"ѕуѕтем", false},
		{"pаypal", false},
		{"ａｄｍｉｎ", false},
		{"𝐚𝐝𝐦𝐢𝐧", false},
		{"ﬁsh", false}, // ligature
		{"ㅤㅤ", false},  // Hangul filler
		{"a\u115fb", false},
		{"join.discord.gg", false},
		{"rvlt.gg", false},
		{"Latinкириллица", false},
		{"山田John", true}, // Latin with Han is how Japanese is written
		{"Ελληνικάabc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := validUsername(tc.name)
			if tc.ok && err != nil || !tc.ok && !errors.Is(err, chat.ErrInvalidUsername) {
				t.Errorf("validUsername(%q) = %v, want ok=%v", tc.name, err, tc.ok)
			}
		})
	}
}

func TestDiscriminatorAllowed(t *testing.T) {
	n := 0
	for d := 0; d <= 9999; d++ {
		if discriminatorAllowed(d) {
			n++
		}
	}
	// 0002..9998 is 9997 values; minus 0123, 1234, 1488 and 1111..8888.
	if n != 9997-3-8 {
		t.Errorf("%d allowed discriminators", n)
	}
	for _, d := range []int{0, 1, 123, 1234, 1488, 1111, 5555, 8888, 9999} {
		if discriminatorAllowed(d) {
			t.Errorf("%04d allowed", d)
		}
	}
}

func TestPickDiscriminator(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(Deps{Store: st, Now: time.Now})
	add := func(name, disc string) {
		t.Helper()
		if err := st.InsertUser(ctx, &chat.User{ID: chat.NewID(), Username: name, Discriminator: disc}); err != nil {
			t.Fatal(err)
		}
	}
	add("Stoat", "0042")
	// keep is honoured when free for the name, case-insensitively.
	if d, err := a.pickDiscriminator(ctx, "stoat", "0043"); err != nil || d != "0043" {
		t.Errorf("keep free = %s, %v", d, err)
	}
	for range 20 {
		d, err := a.pickDiscriminator(ctx, "STOAT", "0042")
		if err != nil || d == "0042" || len(d) != 4 {
			t.Fatalf("keep taken = %s, %v", d, err)
		}
		var n int
		if _, err := fmt.Sscanf(d, "%d", &n); err != nil {
			t.Fatalf("discriminator %q: %v", d, err)
		}
		if !discriminatorAllowed(n) {
			t.Fatalf("picked %s", d)
		}
	}
	// Every discriminator taken: UsernameTaken.
	err = st.InTx(ctx, func(tx store.Store) error {
		for n := 2; n <= 9998; n++ {
			if !discriminatorAllowed(n) {
				continue
			}
			u := &chat.User{ID: chat.NewID(), Username: "Full", Discriminator: fmt.Sprintf("%04d", n)}
			if err := tx.InsertUser(ctx, u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := a.pickDiscriminator(ctx, "full", ""); !errors.Is(err, chat.ErrUsernameTaken) {
		t.Errorf("pick with none free = %s, %v", d, err)
	}
	if d, err := a.pickDiscriminator(ctx, "full", "0123"); err != nil || d != "0123" {
		t.Errorf("keep a free unusual one = %s, %v", d, err)
	}
}
