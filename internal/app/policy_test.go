package app

import (
	"context"
	"testing"
	"time"

	"ermine/internal/chat"
)

// TestReadyPolicyChanges checks which policy changes Ready lists: those
// made after the account when it never acknowledged one, after its last
// acknowledgement when it did, and none for a bot.
func TestReadyPolicyChanges(t *testing.T) {
	ta := newTestApp(t)
	ctx := context.Background()
	me := ta.user(t, "me")
	created := me.ID().Time()
	change := func(d time.Duration, what string) {
		at := chat.TimeOf(created.Add(d))
		if err := ta.st.InsertPolicyChange(ctx, &chat.PolicyChange{CreatedTime: at, EffectiveTime: at, Description: what, URL: "https://ermine.example/" + what}); err != nil {
			t.Fatal(err)
		}
	}
	listed := func(caller *Caller) []string {
		t.Helper()
		ev, _, err := ta.Ready(ctx, caller, ReadySections{PolicyChanges: true})
		if err != nil {
			t.Fatal(err)
		}
		if ev.PolicyChanges == nil {
			t.Fatal("policy_changes is null, want an array")
		}
		var out []string
		for _, p := range ev.PolicyChanges {
			out = append(out, p.Description)
		}
		return out
	}
	if got := listed(me); len(got) != 0 {
		t.Errorf("no changes: listed %q", got)
	}
	change(-time.Hour, "before")
	change(2*time.Second, "terms")
	change(4*time.Second, "privacy")
	if got := listed(me); len(got) != 2 || got[0] != "terms" || got[1] != "privacy" {
		t.Errorf("without an account record: listed %q, want [terms privacy]", got)
	}

	ack := chat.TimeOf(created.Add(3 * time.Second))
	if err := ta.st.InsertAccount(ctx, &chat.Account{ID: me.ID(), Email: "me@ermine.example", EmailNormalised: "me@ermine.example", PolicyAcknowledged: &ack}); err != nil {
		t.Fatal(err)
	}
	if got := listed(me); len(got) != 1 || got[0] != "privacy" {
		t.Errorf("acknowledged after terms: listed %q, want [privacy]", got)
	}
	later := chat.TimeOf(created.Add(5 * time.Second))
	acc, err := ta.st.FetchAccount(ctx, me.ID())
	if err != nil {
		t.Fatal(err)
	}
	acc.PolicyAcknowledged = &later
	if err := ta.st.UpdateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	if got := listed(me); len(got) != 0 {
		t.Errorf("all acknowledged: listed %q", got)
	}

	bot := &Caller{User: me.User, Bot: &chat.Bot{ID: me.ID()}}
	if got := listed(bot); len(got) != 0 {
		t.Errorf("bot: listed %q", got)
	}
}
