package auth

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"ermine/internal/chat"
)

// cheap keeps the tests fast; the format and logic are the same.
var cheap = Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashVerify(t *testing.T) {
	ctx := context.Background()
	h := NewHasher(cheap, 2)
	enc, err := h.Hash(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=64,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(enc) {
		t.Fatalf("hash %q is not a PHC string with its parameters", enc)
	}
	again, _ := h.Hash(ctx, "correct horse")
	if again == enc {
		t.Error("two hashes of one password are equal: salt not random")
	}
	for _, tc := range []struct {
		name     string
		password string
		want     bool
	}{
		{"right", "correct horse", true},
		{"wrong", "correct horsf", false},
		{"prefix", "correct hors", false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := h.Verify(ctx, tc.password, enc)
			if err != nil || ok != tc.want {
				t.Errorf("Verify(%q) = %v, %v; want %v", tc.password, ok, err, tc.want)
			}
		})
	}
	// A hash made with other parameters still verifies with its own.
	other := NewHasher(Params{Memory: 128, Time: 2, Threads: 2, SaltLen: 8, KeyLen: 16}, 1)
	old, _ := other.Hash(ctx, "pw")
	if ok, err := h.Verify(ctx, "pw", old); !ok || err != nil {
		t.Errorf("verify with stored parameters = %v, %v", ok, err)
	}
	if !h.Outdated(old) || h.Outdated(enc) {
		t.Errorf("Outdated(old) = %v, Outdated(current) = %v", h.Outdated(old), h.Outdated(enc))
	}
}

// TestVerifyForeign checks hashes written by the argon2 reference
// implementation (libargon2, through its argon2*_hash_encoded), among
// them an argon2i string with the parameters Revolt/Stoat instances use,
// so that imported accounts keep their passwords.
func TestVerifyForeign(t *testing.T) {
	h := NewHasher(cheap, 1)
	for _, enc := range []string{
		"$argon2i$v=19$m=4096,t=3,p=1$ZXJtaW5lLXNhbHQtMTIzNA$IDb2LNyRBsZfiNLYthXKwPKVMIo4Uhf1L24c/Vd+Dw0",
		"$argon2id$v=19$m=256,t=2,p=2$ZXJtaW5lLXNhbHQtMTIzNA$wL6E62IA8yytpmKnqwiG6KVvtEV7V6G+",
		"$argon2i$v=19$m=64,t=1,p=4$ZXJtaW5lLXNhbHQtMTIzNA$lF4H54H27hs6qNDALpoHuA",
	} {
		for pw, want := range map[string]bool{"hunter2 old password": true, "hunter2 old passwore": false} {
			ok, err := h.Verify(context.Background(), pw, enc)
			if err != nil || ok != want {
				t.Errorf("Verify(%q, %s) = %v, %v; want %v", pw, enc, ok, err, want)
			}
		}
		if !h.Outdated(enc) {
			t.Errorf("Outdated(%s) = false; a login should replace it", enc)
		}
	}
}

func TestVerifyMalformed(t *testing.T) {
	h := NewHasher(cheap, 1)
	for _, enc := range []string{
		"", "!", "$argon2d$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1,x=2$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$!!$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA",
	} {
		ok, err := h.Verify(context.Background(), "x", enc)
		if ok || !errors.Is(err, ErrMalformedHash) {
			t.Errorf("Verify(%q) = %v, %v; want ErrMalformedHash", enc, ok, err)
		}
	}
}

func TestHashWaitsForSlot(t *testing.T) {
	h := NewHasher(cheap, 1)
	h.sem <- struct{}{} // the only slot is busy
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := h.Hash(ctx, "password"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Hash with no free slot = %v, want deadline exceeded", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Verify(context.Background(), "x", "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Verify ran while the slot was busy (%v)", err)
	case <-time.After(30 * time.Millisecond):
	}
	h.release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPolicy(t *testing.T) {
	p, err := NewPolicy()
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() < 40_000 {
		t.Fatalf("compromised list has %d entries", p.Len())
	}
	for _, tc := range []struct {
		password string
		want     error
	}{
		{"short", chat.ErrShortPassword},
		{"1234567", chat.ErrShortPassword},
		{"клю", chat.ErrShortPassword}, // 3 characters, 6 bytes
		{"password123", chat.ErrCompromisedPassword},
		{"PassWord123", chat.ErrCompromisedPassword},
		{"qwertyuiop", chat.ErrCompromisedPassword},
		{"correct horse battery", nil},
		{"ключ", nil}, // 4 characters, 8 bytes: length counts bytes
	} {
		t.Run(tc.password, func(t *testing.T) {
			err := p.Check(tc.password)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Check(%q) = %v, want %v", tc.password, err, tc.want)
			}
		})
	}
}

func TestNormaliseEmail(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"Alice@Example.COM", "alice@example.com"},
		{"a.l.i.c.e+chat@example.com", "alice@example.com"},
		{"bob+x+y@mail.example", "bob@mail.example"},
		{"ласка@пример.рф", "ласка@пример.рф"},
		{"", ""},
		{"plain", ""},
		{"Alice <alice@example.com>", ""},
		{"a@b@c", ""},
		{"+tag@example.com", ""},
		{" alice@example.com", ""},
		{strings.Repeat("a", 250) + "@x.io", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormaliseEmail(tc.in)
			if tc.want == "" {
				var ce *chat.Error
				if !errors.As(err, &ce) || ce.Type != "IncorrectData" || ce.Fields["with"] != "email" {
					t.Errorf("NormaliseEmail(%q) = %q, %v; want IncorrectData{with:email}", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("NormaliseEmail(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestTOTP(t *testing.T) {
	secret, err := NewTOTPSecret("Ermine", "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[A-Z2-7]{16}$`).MatchString(secret) {
		t.Fatalf("secret %q is not 16 base32 characters", secret)
	}
	now := time.Unix(1_700_000_015, 0)
	code := func(at time.Time) string {
		c, err := TOTPCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	step := TOTPStep(now)
	for _, tc := range []struct {
		name     string
		code     string
		lastStep int64
		ok       bool
		step     int64
	}{
		{"current", code(now), 0, true, step},
		{"previous step", code(now.Add(-30 * time.Second)), 0, true, step - 1},
		{"next step", code(now.Add(30 * time.Second)), 0, true, step + 1},
		{"too old", code(now.Add(-90 * time.Second)), 0, false, 0},
		{"replayed", code(now), step, false, 0},
		{"older than last used", code(now.Add(-30 * time.Second)), step - 1, false, 0},
		{"wrong", "000000", 0, code(now) == "000000", step},
		{"not six digits", "12345", 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CheckTOTP(secret, tc.code, now, tc.lastStep)
			if ok != tc.ok || ok && got != tc.step {
				t.Errorf("CheckTOTP = %d, %v; want %d, %v", got, ok, tc.step, tc.ok)
			}
		})
	}
}

func TestRecoveryCodes(t *testing.T) {
	codes := NewRecoveryCodes()
	if len(codes) != RecoveryCodeCount {
		t.Fatalf("%d codes", len(codes))
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if !regexp.MustCompile(`^[a-z2-9]{5}-[a-z2-9]{5}$`).MatchString(c) || seen[c] {
			t.Errorf("bad or repeated code %q", c)
		}
		seen[c] = true
	}
	if i := MatchRecoveryCode(codes, codes[3]); i != 3 {
		t.Errorf("match = %d, want 3", i)
	}
	if i := MatchRecoveryCode(codes, " "+strings.ToUpper(strings.ReplaceAll(codes[7], "-", ""))); i != 7 {
		t.Errorf("loose match = %d, want 7", i)
	}
	if i := MatchRecoveryCode(codes, "aaaaa-aaaaa"); i != -1 && codes[i] != "aaaaa-aaaaa" {
		t.Errorf("unknown code matched %d", i)
	}
	if i := MatchRecoveryCode(nil, codes[0]); i != -1 {
		t.Errorf("match in no codes = %d", i)
	}
}

func TestTokens(t *testing.T) {
	url := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	for _, tc := range []struct {
		name string
		tok  string
		n    int
	}{
		{"session", NewSessionToken(), 64},
		{"email", NewEmailToken(), 32},
		{"ticket", NewTicketToken(), 64},
		{"invite", NewInviteCode(), 10},
	} {
		if len(tc.tok) != tc.n || !url.MatchString(tc.tok) {
			t.Errorf("%s token %q: want %d URL-safe characters", tc.name, tc.tok, tc.n)
		}
	}
	if strings.ContainsAny(NewInviteCode()+NewInviteCode()+NewInviteCode(), "ILOUilou_-") {
		t.Error("invite code has a confusable letter")
	}
	if !Equal("abc", "abc") || Equal("abc", "abd") || Equal("abc", "ab") {
		t.Error("Equal is wrong")
	}
}
