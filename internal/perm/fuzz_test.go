package perm

import (
	"testing"
	"time"

	"ermine/internal/chat"
)

// world is a server with two roles and a text channel built from fuzz
// input, with member "U" holding some of the roles.
type world struct {
	server  *chat.Server
	channel *chat.Channel
	member  *chat.Member
}

// Bits of the fuzzers' shape argument.
const (
	holdsR0 = 1 << iota
	holdsR1
	deleteR1
	channelDefault
	channelRoles
	timeoutSet
)

func newWorld(def uint64, r0, r1, cd, c0, c1 chat.Override, rank0, rank1 int64, shape uint8) world {
	// Ranks are list positions, never negative.
	rank0, rank1 = rank0&0xffff, rank1&0xffff
	s := &chat.Server{
		ID: "S", Owner: "O", DefaultPermissions: int64(def),
		Roles: map[chat.ID]chat.Role{
			"r0": {Rank: rank0, Permissions: r0},
			"r1": {Rank: rank1, Permissions: r1},
		},
	}
	c := &chat.Channel{ChannelType: chat.ChannelText, ID: "T", Server: "S"}
	if shape&channelDefault != 0 {
		c.DefaultPermissions = &cd
	}
	if shape&channelRoles != 0 {
		c.RolePermissions = map[chat.ID]chat.Override{"r0": c0, "r1": c1}
	}
	m := &chat.Member{ID: chat.MemberID{Server: "S", User: "U"}}
	if shape&holdsR0 != 0 {
		m.Roles = append(m.Roles, "r0")
	}
	if shape&holdsR1 != 0 {
		m.Roles = append(m.Roles, "r1")
	}
	if shape&deleteR1 != 0 {
		delete(s.Roles, "r1")
	}
	if shape&timeoutSet != 0 {
		until := chat.TimeOf(now.Add(time.Hour))
		m.Timeout = &until
	}
	return world{server: s, channel: c, member: m}
}

func (w world) facts(user chat.ID) ChannelFacts {
	return ChannelFacts{Channel: w.channel, Server: w.server, Member: w.member, UserID: user, Now: now}
}

// addSeeds gives every world fuzzer the same seed corpus.
func addSeeds(f *testing.F) {
	all := int64(GrantAllSafe)
	// Member with both roles; the channel lets r0 send again after the
	// timeout's cut would have removed it.
	f.Add(uint64(DefaultServer), int64(ManageServer), int64(0), int64(0), int64(SendMessage),
		int64(ManageWebhooks), int64(Masquerade), int64(SendMessage), int64(0), int64(0), int64(React), int64(0), int64(1), uint8(0x3f&^deleteR1))
	// The channel hides itself by default; r0 brings ViewChannel back.
	f.Add(uint64(0), all, int64(0), int64(0), all, int64(0), int64(ViewChannel), int64(ViewChannel), int64(0), int64(0), all,
		int64(5), int64(5), uint8(holdsR0|holdsR1|channelDefault|channelRoles))
	f.Add(^uint64(0), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1),
		int64(-3), int64(9), uint8(0xff))
	f.Add(uint64(ViewOnly), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0),
		int64(0), int64(0), uint8(timeoutSet))
	f.Add(uint64(DefaultServer), int64(0), int64(ViewChannel), int64(ViewChannel), int64(0), int64(0), int64(ViewChannel),
		int64(Connect), int64(0), int64(ViewChannel), int64(0), int64(2), int64(1), uint8(holdsR0|holdsR1|deleteR1|channelDefault|channelRoles))
}

type worldFunc func(t *testing.T, w world)

// fuzzWorld runs check over worlds built from the fuzz input.
func fuzzWorld(f *testing.F, check worldFunc) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, def uint64, r0a, r0d, r1a, r1d, cda, cdd, c0a, c0d, c1a, c1d, rank0, rank1 int64, shape uint8) {
		w := newWorld(def,
			chat.Override{A: r0a, D: r0d}, chat.Override{A: r1a, D: r1d},
			chat.Override{A: cda, D: cdd},
			chat.Override{A: c0a, D: c0d}, chat.Override{A: c1a, D: c1d},
			rank0, rank1, shape)
		check(t, w)
	})
}

// FuzzTimeoutOnlyTakesAway: a timeout never adds a permission, and a
// timed-out member keeps at most AllowedInTimeout.
func FuzzTimeoutOnlyTakesAway(f *testing.F) {
	fuzzWorld(f, func(t *testing.T, w world) {
		free := *w.member
		free.Timeout = nil
		timed := *w.member
		until := chat.TimeOf(now.Add(time.Minute))
		timed.Timeout = &until

		sFree := ForServer(ServerFacts{Server: w.server, Member: &free, UserID: "U", Now: now})
		sTimed := ForServer(ServerFacts{Server: w.server, Member: &timed, UserID: "U", Now: now})
		if !sFree.Has(sTimed) || !AllowedInTimeout.Has(sTimed) {
			t.Fatalf("server: timed out %v, free %v", sTimed, sFree)
		}
		fFree, fTimed := w.facts("U"), w.facts("U")
		fFree.Member, fTimed.Member = &free, &timed
		cFree, cTimed := ForChannel(fFree), ForChannel(fTimed)
		if !cFree.Has(cTimed) || !AllowedInTimeout.Has(cTimed) {
			t.Fatalf("channel: timed out %v, free %v", cTimed, cFree)
		}
	})
}

// FuzzOwnerHoldsEverything: the owner holds GrantAllSafe whatever the
// roles, overrides and timeout say.
func FuzzOwnerHoldsEverything(f *testing.F) {
	fuzzWorld(f, func(t *testing.T, w world) {
		w.member.ID.User = "O"
		if got := ForServer(ServerFacts{Server: w.server, Member: w.member, UserID: "O", Now: now}); got != GrantAllSafe {
			t.Fatalf("ForServer(owner) = %v", got)
		}
		if got := ForChannel(w.facts("O")); got != GrantAllSafe {
			t.Fatalf("ForChannel(owner) = %v", got)
		}
		if got := MemberRank(w.server, w.member); !CanActOn(got, MemberRank(w.server, member("U", "r0", "r1"))) {
			t.Fatalf("owner rank %d cannot act on a member", got)
		}
	})
}

// FuzzViewChannelGate: a member either sees the channel or holds
// nothing in it, and a member nothing gives ViewChannel holds nothing.
func FuzzViewChannelGate(f *testing.F) {
	fuzzWorld(f, func(t *testing.T, w world) {
		if got := ForChannel(w.facts("U")); got != 0 && !got.Has(ViewChannel) {
			t.Fatalf("ForChannel = %v: not zero but without ViewChannel", got)
		}
		// Deny ViewChannel in the channel default and take it out of every
		// role's server and channel allow: nothing can give it back (a
		// role's server allow would, since the channel default lies below
		// it, #847).
		d := chat.Override{D: int64(ViewChannel)}
		if w.channel.DefaultPermissions != nil {
			d.A = w.channel.DefaultPermissions.A &^ int64(ViewChannel)
			d.D |= w.channel.DefaultPermissions.D
		}
		w.channel.DefaultPermissions = &d
		for id, o := range w.channel.RolePermissions {
			o.A &^= int64(ViewChannel)
			w.channel.RolePermissions[id] = o
		}
		for id, r := range w.server.Roles {
			r.Permissions.A &^= int64(ViewChannel)
			w.server.Roles[id] = r
		}
		if got := ForChannel(w.facts("U")); got != 0 {
			t.Fatalf("ForChannel without ViewChannel = %v, want 0", got)
		}
	})
}

// FuzzForChannelWithinGrantAllSafe: no channel of any type grants bits
// above GrantAllSafe.
func FuzzForChannelWithinGrantAllSafe(f *testing.F) {
	fuzzWorld(f, func(t *testing.T, w world) {
		check := func(name string, fc ChannelFacts) {
			t.Helper()
			if got := ForChannel(fc); !GrantAllSafe.Has(got) {
				t.Fatalf("%s: ForChannel = %#x exceeds GrantAllSafe", name, uint64(got))
			}
		}
		for _, user := range []chat.ID{"U", "O", "X"} {
			check("server channel", w.facts(user))
			if got := ForServer(ServerFacts{Server: w.server, Member: w.member, UserID: user, Now: now}); !GrantAllSafe.Has(got) {
				t.Fatalf("ForServer = %#x exceeds GrantAllSafe", uint64(got))
			}
		}
		groupPerms := w.server.DefaultPermissions
		group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: "G", Owner: "O", Recipients: []chat.ID{"O", "U"}, Permissions: &groupPerms}
		check("group member", ChannelFacts{Channel: group, UserID: "U"})
		dm := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: "D", Recipients: []chat.ID{"U", "O"}}
		check("direct message", ChannelFacts{Channel: dm, UserID: "U", Peer: UserFacts{Relationship: chat.RelationFriend}})
	})
}

// FuzzApplyIdempotent: applying the same override twice equals applying
// it once.
func FuzzApplyIdempotent(f *testing.F) {
	f.Add(uint64(0), int64(0), int64(0))
	f.Add(uint64(DefaultServer), int64(ManageServer), int64(SendMessage))
	f.Add(^uint64(0), int64(-1), int64(0))
	f.Add(uint64(ViewOnly), int64(ViewChannel), int64(ViewChannel))
	f.Fuzz(func(t *testing.T, p uint64, a, d int64) {
		o := chat.Override{A: a, D: d}
		once := Set(p).Apply(o)
		if twice := once.Apply(o); twice != once {
			t.Fatalf("Apply twice = %v, once = %v", twice, once)
		}
		if once&Set(d) != 0 {
			t.Fatalf("Apply left denied bits: %v", once&Set(d))
		}
	})
}
