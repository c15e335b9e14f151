package storetest

import (
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

func testVoice(t *testing.T, s store.Store) {
	c := ctx(t)
	server, ch1, ch2, dm := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	alice, bob := chat.NewID(), chat.NewID()
	joined := chat.TimeOf(time.Now().Truncate(time.Millisecond))

	_, err := s.FetchVoiceCall(c, ch1)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.DeleteVoiceCall(c, ch1), store.ErrNotFound)
	wantErr(t, s.DeleteVoiceParticipant(c, ch1, alice), store.ErrNotFound)

	call := &chat.VoiceCall{Channel: ch1, Node: "eu", Message: chat.NewID(), Initiator: alice, StartedAt: &joined,
		Ring: []chat.ID{bob}, RingUntil: &joined}
	must(t, s.SetVoiceCall(c, call))
	got, err := s.FetchVoiceCall(c, ch1)
	must(t, err)
	same(t, got, call)
	call.Ring = nil
	call.Node = "us"
	must(t, s.SetVoiceCall(c, call))
	got, err = s.FetchVoiceCall(c, ch1)
	must(t, err)
	same(t, got, call)

	pa := &chat.VoiceParticipant{Channel: ch1, Server: server, Node: "us",
		State: chat.UserVoiceState{ID: alice, JoinedAt: joined, IsReceiving: true}}
	pb := &chat.VoiceParticipant{Channel: ch1, Server: server, Node: "us",
		State: chat.UserVoiceState{ID: bob, JoinedAt: joined}}
	pb2 := &chat.VoiceParticipant{Channel: ch2, Server: server, Node: "us", MovingTo: ch1, MoveUntil: &joined,
		State: chat.UserVoiceState{ID: bob, JoinedAt: joined}}
	pdm := &chat.VoiceParticipant{Channel: dm, Node: "us", State: chat.UserVoiceState{ID: alice, JoinedAt: joined}}
	for _, p := range []*chat.VoiceParticipant{pa, pb, pb2, pdm} {
		must(t, s.SetVoiceParticipant(c, p))
	}
	pa.State.IsPublishing = true
	pa.State.Camera = true
	must(t, s.SetVoiceParticipant(c, pa))
	gp, err := s.FetchVoiceParticipant(c, ch1, alice)
	must(t, err)
	same(t, gp, pa)
	_, err = s.FetchVoiceParticipant(c, ch2, alice)
	wantErr(t, err, store.ErrNotFound)

	list, err := s.FetchVoiceParticipants(c, []chat.ID{ch1, dm})
	must(t, err)
	if len(list) != 3 {
		t.Fatalf("participants of ch1 and dm = %d, want 3", len(list))
	}
	list, err = s.FetchServerVoiceParticipants(c, server)
	must(t, err)
	if len(list) != 3 {
		t.Fatalf("server participants = %d, want 3", len(list))
	}
	list, err = s.FetchUserVoiceParticipants(c, bob)
	must(t, err)
	if len(list) != 2 {
		t.Fatalf("bob's channels = %d, want 2", len(list))
	}
	for _, p := range list {
		if p.Channel == ch2 {
			same(t, p, pb2)
		}
	}

	must(t, s.DeleteVoiceParticipant(c, ch2, bob))
	wantErr(t, s.DeleteVoiceParticipant(c, ch2, bob), store.ErrNotFound)

	// Deleting the call takes its participants with it, and only its own.
	must(t, s.DeleteVoiceCall(c, ch1))
	list, err = s.FetchVoiceParticipants(c, []chat.ID{ch1, dm})
	must(t, err)
	if len(list) != 1 || list[0].Channel != dm {
		t.Fatalf("after deleting ch1's call: %+v", list)
	}
}
