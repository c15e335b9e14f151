package discord

import (
	"strings"
	"testing"
)

func TestEmojiName(t *testing.T) {
	for in, want := range map[string]string{
		"partyparrot":               "partyparrot",
		"PartyParrot":               "partyparrot",
		"Blob Cat!":                 "blob_cat",
		"a--b__c":                   "a_b__c",
		"café":                      "caf",
		"🙂":                         "emoji",
		"__":                        "emoji",
		strings.Repeat("long_", 10): "long_long_long_long_long_long_lo",
	} {
		if got := emojiName(in); got != want {
			t.Errorf("emojiName(%q) = %q, want %q", in, got, want)
		}
	}
	taken := map[string]bool{}
	long := strings.Repeat("x", 32)
	for _, want := range []string{"blob", "blob_2", "blob_3"} {
		if got := uniqueName("blob", taken); got != want {
			t.Errorf("uniqueName = %q, want %q", got, want)
		}
	}
	if got := uniqueName(long, taken); got != long {
		t.Errorf("uniqueName(long) = %q", got)
	}
	if got := uniqueName(long, taken); got != long[:30]+"_2" {
		t.Errorf("second uniqueName(long) = %q, want 32 characters", got)
	}
}
