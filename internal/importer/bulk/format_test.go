package bulk

import (
	"encoding/json"
	"strings"
	"testing"

	"ermine/internal/chat"
)

// TestMessageRecordAuthorBot checks that a Message record carries
// author_bot beside the message's API shape, and that a record without it
// (a version 1 file written before it existed) reads as not a bot's.
func TestMessageRecordAuthorBot(t *testing.T) {
	content := "beep"
	m := &chat.Message{ID: chat.NewID(), Channel: chat.NewID(), Author: chat.NewID(), Content: &content, AuthorBot: true}
	b, err := json.Marshal(Message{Message: m, AuthorBot: m.AuthorBot})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"author_bot":true`) || !strings.Contains(string(b), `"content":"beep"`) {
		t.Fatalf("record object = %s, want the message with author_bot", b)
	}
	var back Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.AuthorBot || back.Message == nil || back.ID != m.ID || *back.Content != content {
		t.Fatalf("read back %+v from %s", back, b)
	}

	b, err = json.Marshal(Message{Message: &chat.Message{ID: m.ID, Channel: m.Channel, Author: m.Author, Content: &content}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "author_bot") {
		t.Fatalf("a user's message record = %s, want no author_bot", b)
	}
	var old Message
	if err := json.Unmarshal([]byte(`{"_id":"`+string(m.ID)+`","channel":"`+string(m.Channel)+`","author":"`+string(m.Author)+`","content":"hi"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.AuthorBot || old.Message == nil || old.ID != m.ID {
		t.Fatalf("a version 1 record without author_bot read as %+v", old)
	}
}
