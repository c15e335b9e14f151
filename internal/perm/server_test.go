package perm

import (
	"math"
	"testing"
	"time"

	"ermine/internal/chat"
)

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func ov(a, d Set) chat.Override { return chat.Override{A: int64(a), D: int64(d)} }

// testServer has owner "O" and default permissions DefaultServer.
//
//	admin  rank 0: allows ManageServer|SendMessage|KickMembers
//	muted  rank 1: denies SendMessage|React
//	helper rank 2: allows ManageMessages|SendMessage
//	deafen rank 7: denies ViewChannel
func testServer() *chat.Server {
	return &chat.Server{
		ID:                 "S",
		Owner:              "O",
		DefaultPermissions: int64(DefaultServer),
		Roles: map[chat.ID]chat.Role{
			"admin":  {Name: "admin", Rank: 0, Permissions: ov(ManageServer|SendMessage|KickMembers, 0)},
			"muted":  {Name: "muted", Rank: 1, Permissions: ov(0, SendMessage|React)},
			"helper": {Name: "helper", Rank: 2, Permissions: ov(ManageMessages|SendMessage, 0)},
			"deafen": {Name: "deafen", Rank: 7, Permissions: ov(0, ViewChannel)},
		},
	}
}

func member(user chat.ID, roles ...chat.ID) *chat.Member {
	return &chat.Member{ID: chat.MemberID{Server: "S", User: user}, Roles: roles}
}

func timedOut(m *chat.Member, until time.Time) *chat.Member {
	t := chat.TimeOf(until)
	m.Timeout = &t
	return m
}

func TestForServer(t *testing.T) {
	s := testServer()
	tests := []struct {
		name string
		f    ServerFacts
		want Set
	}{
		{"owner", ServerFacts{Server: s, UserID: "O", Now: now}, GrantAllSafe},
		{"owner with a member record and a timeout", ServerFacts{Server: s, Member: timedOut(member("O"), now.Add(time.Hour)), UserID: "O", Now: now}, GrantAllSafe},
		{"privileged non-member", ServerFacts{Server: s, UserID: "P", Privileged: true, Now: now}, GrantAllSafe},
		{"non-member", ServerFacts{Server: s, UserID: "U", Now: now}, 0},
		{"empty user id", ServerFacts{Server: &chat.Server{ID: "S"}, Member: member(""), Now: now}, 0},
		{"no server", ServerFacts{Member: member("U"), UserID: "U", Now: now}, 0},
		{"plain member", ServerFacts{Server: s, Member: member("U"), UserID: "U", Now: now}, DefaultServer},
		{"one role", ServerFacts{Server: s, Member: member("U", "helper"), UserID: "U", Now: now}, DefaultServer | ManageMessages},
		{"rank 0 allow beats rank 1 deny", ServerFacts{Server: s, Member: member("U", "muted", "admin"), UserID: "U", Now: now},
			(DefaultServer | ManageServer | KickMembers) &^ React},
		{"rank 0 allow beats rank 1 deny, other order", ServerFacts{Server: s, Member: member("U", "admin", "muted"), UserID: "U", Now: now},
			(DefaultServer | ManageServer | KickMembers) &^ React},
		{"rank 1 deny beats rank 2 allow", ServerFacts{Server: s, Member: member("U", "helper", "muted"), UserID: "U", Now: now},
			(DefaultServer | ManageMessages) &^ (SendMessage | React)},
		{"deleted role ignored", ServerFacts{Server: s, Member: member("U", "gone", "helper"), UserID: "U", Now: now}, DefaultServer | ManageMessages},
		{"timed out", ServerFacts{Server: s, Member: timedOut(member("U", "admin"), now.Add(time.Minute)), UserID: "U", Now: now}, ViewOnly},
		{"timeout expired", ServerFacts{Server: s, Member: timedOut(member("U"), now.Add(-time.Minute)), UserID: "U", Now: now}, DefaultServer},
		{"timeout ending now has expired", ServerFacts{Server: s, Member: timedOut(member("U"), now), UserID: "U", Now: now}, DefaultServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForServer(tt.f); got != tt.want {
				t.Errorf("ForServer = %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestForServerMasksUnsafeBits(t *testing.T) {
	s := testServer()
	s.DefaultPermissions = -1 // every bit, as a bad stored value would carry
	got := ForServer(ServerFacts{Server: s, Member: member("U"), UserID: "U", Now: now})
	if got != GrantAllSafe {
		t.Errorf("ForServer = %#x, want GrantAllSafe", uint64(got))
	}
}

func TestTimedOut(t *testing.T) {
	tests := []struct {
		name string
		m    *chat.Member
		want bool
	}{
		{"no member", nil, false},
		{"no timeout", member("U"), false},
		{"future", timedOut(member("U"), now.Add(time.Millisecond)), true},
		{"past", timedOut(member("U"), now.Add(-time.Millisecond)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TimedOut(tt.m, now); got != tt.want {
				t.Errorf("TimedOut = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMemberRank(t *testing.T) {
	s := testServer()
	tests := []struct {
		name string
		m    *chat.Member
		want int64
	}{
		{"owner", member("O", "helper"), math.MinInt64},
		{"no roles", member("U"), math.MaxInt64},
		{"only deleted roles", member("U", "gone"), math.MaxInt64},
		{"one role", member("U", "helper"), 2},
		{"smallest wins", member("U", "deafen", "muted", "helper"), 1},
		{"deleted role ignored", member("U", "gone", "deafen"), 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MemberRank(s, tt.m); got != tt.want {
				t.Errorf("MemberRank = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCanActOn(t *testing.T) {
	tests := []struct {
		name           string
		actor, target  int64
		act, manageTgt bool
	}{
		{"higher acts on lower", 1, 2, true, true},
		{"same rank", 2, 2, false, false},
		{"lower on higher", 3, 2, false, false},
		{"owner on role-less", math.MinInt64, math.MaxInt64, true, true},
		{"owner on rank 0", math.MinInt64, 0, true, true},
		{"role-less on role-less", math.MaxInt64, math.MaxInt64, false, false},
		{"role-less on anyone", math.MaxInt64, 5, false, false},
		{"anyone on owner", 0, math.MinInt64, false, false},
		{"ranked member on role-less", 9, math.MaxInt64, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CanActOn(tt.actor, tt.target); got != tt.act {
				t.Errorf("CanActOn(%d, %d) = %v, want %v", tt.actor, tt.target, got, tt.act)
			}
			if got := CanManageRole(tt.actor, tt.target); got != tt.manageTgt {
				t.Errorf("CanManageRole(%d, %d) = %v, want %v", tt.actor, tt.target, got, tt.manageTgt)
			}
		})
	}
}
