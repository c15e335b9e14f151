package event_test

import (
	"testing"

	"ermine/internal/chat"
	"ermine/internal/event"
)

func BenchmarkMsgpackMessage(b *testing.B) {
	text := "a message of the load generator, long enough to look like chat"
	ev := chat.MessageEvent{Type: chat.EvMessage, Message: &chat.Message{ID: chat.NewID(), Channel: chat.NewID(), Author: chat.NewID(), Content: &text}}
	b.ReportAllocs()
	for range b.N {
		if _, err := event.Msgpack(ev); err != nil {
			b.Fatal(err)
		}
	}
}
