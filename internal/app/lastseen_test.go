package app

import (
	"context"
	"testing"
	"time"

	"ermine/internal/chat"
)

// TestReadyRecordsLastSeen checks that Ready records the session's last
// sighting in a batch, that the batched write changes nothing else of the
// session (a rename made meanwhile stays), and that a sighting less than
// lastSeenStep old is not written again.
func TestReadyRecordsLastSeen(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	me := ta.user(t, "me")
	se := &chat.Session{ID: me.Session.ID, UserID: me.ID(), Token: chat.NewToken(64), Name: "laptop"}
	if err := ta.st.InsertSession(ctx, se); err != nil {
		t.Fatal(err)
	}
	caller := &Caller{User: me.User, Session: se}
	start := time.Now().Add(-time.Second)
	if _, _, err := ta.Ready(ctx, caller, ReadySections{}); err != nil {
		t.Fatal(err)
	}
	// The rename happens between the sighting and its batched write.
	renamed := *se
	renamed.Name, renamed.LastSeen = "work laptop", nil
	if err := ta.st.UpdateSession(ctx, &renamed); err != nil {
		t.Fatal(err)
	}
	ta.login.lastSeen.Flush()
	got, err := ta.st.FetchSession(ctx, se.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "work laptop" {
		t.Errorf("name %q: the last sighting's write replaced the rename", got.Name)
	}
	if got.LastSeen == nil || got.LastSeen.Before(start) {
		t.Fatalf("last seen %v, want the time of Ready", got.LastSeen)
	}
	first := *got.LastSeen

	// Ready again at once: the sighting is recent enough, nothing waits.
	if _, _, err := ta.Ready(ctx, caller, ReadySections{}); err != nil {
		t.Fatal(err)
	}
	waiting := ta.login.lastSeen.Pending()
	if waiting != 0 {
		t.Errorf("%d sightings waiting after a Ready within %s of the last", waiting, lastSeenStep)
	}
	got, err = ta.st.FetchSession(ctx, se.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastSeen.Equal(first.Time) {
		t.Errorf("last seen moved from %v to %v", first, got.LastSeen)
	}
}
