// Package storetest is the conformance suite of the storage contract.
// Every store implementation runs it; a behaviour the suite does not pin
// down is not part of the contract.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Run checks a Store against the contract. open returns a new, empty
// store and is called once per subtest.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"Accounts", testAccounts},
		{"Tickets", testTickets},
		{"RegistrationInvites", testRegistrationInvites},
		{"Sessions", testSessions},
		{"Users", testUsers},
		{"Relationships", testRelationships},
		{"Bots", testBots},
		{"Servers", testServers},
		{"Members", testMembers},
		{"Bans", testBans},
		{"Channels", testChannels},
		{"ServersChannels", testServersChannels},
		{"ChannelAccess", testChannelAccess},
		{"ReadyFacts", testReadyFacts},
		{"Messages", testMessages},
		{"MessageSearch", testMessageSearch},
		{"MessageFilter", testMessageFilter},
		{"EphemeralMessages", testEphemeralMessages},
		{"Emojis", testEmojis},
		{"Invites", testInvites},
		{"Files", testFiles},
		{"Webhooks", testWebhooks},
		{"Unreads", testUnreads},
		{"Settings", testSettings},
		{"HostileInput", testHostileInput},
		{"NUL", testNUL},
		{"Safety", testSafety},
		{"Platform", testPlatform},
		{"Voice", testVoice},
		{"AuditLogs", testAuditLogs},
		{"Imports", testImports},
		{"Transactions", testTransactions},
		{"ConcurrentWrites", testConcurrentWrites},
		{"LockOrder", testLockOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s)
		})
	}
}

func ctx(t *testing.T) context.Context { return t.Context() }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}

func same(t *testing.T, got, want any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("mismatch (-want +got):\n%s", d)
	}
}

func ptr[T any](v T) *T { return &v }

func testAccounts(t *testing.T, s store.Store) {
	c := ctx(t)
	exp := chat.Now()
	a := &chat.Account{ID: chat.NewID(), Email: "A.b+x@Example.com", EmailNormalised: "ab@example.com",
		PasswordHash: "$argon2id$...", Verified: true,
		Verification: &chat.AccountToken{Token: "verify-1", Expiry: exp}}
	must(t, s.InsertAccount(c, a))
	got, err := s.FetchAccount(c, a.ID)
	must(t, err)
	same(t, got, a)
	got, err = s.FetchAccountByEmail(c, "ab@example.com")
	must(t, err)
	same(t, got.ID, a.ID)
	got, err = s.FetchAccountByToken(c, "verify-1")
	must(t, err)
	same(t, got.ID, a.ID)
	_, err = s.FetchAccountByToken(c, "")
	wantErr(t, err, store.ErrNotFound)

	dup := *a
	dup.ID = chat.NewID()
	dup.Verification = nil
	wantErr(t, s.InsertAccount(c, &dup), store.ErrConflict)

	a.Verification = nil
	a.PasswordReset = &chat.AccountToken{Token: "reset-1", Expiry: exp}
	a.DeleteAfter = ptr(chat.TimeOf(time.Now().Add(-time.Minute)))
	must(t, s.UpdateAccount(c, a))
	_, err = s.FetchAccountByToken(c, "verify-1")
	wantErr(t, err, store.ErrNotFound)
	got, err = s.FetchAccountByToken(c, "reset-1")
	must(t, err)
	same(t, got, a)
	due, err := s.FetchAccountsDueForDeletion(c, chat.Now())
	must(t, err)
	same(t, len(due), 1)

	other := &chat.Account{ID: chat.NewID(), Email: "c@d.e", EmailNormalised: "c@d.e"}
	must(t, s.InsertAccount(c, other))
	other.EmailNormalised = "ab@example.com"
	wantErr(t, s.UpdateAccount(c, other), store.ErrConflict)
	wantErr(t, s.UpdateAccount(c, &chat.Account{ID: chat.NewID(), EmailNormalised: "zz"}), store.ErrNotFound)

	must(t, s.DeleteAccount(c, a.ID))
	_, err = s.FetchAccount(c, a.ID)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.DeleteAccount(c, a.ID), store.ErrNotFound)
}

func testTickets(t *testing.T, s store.Store) {
	c := ctx(t)
	tk := &chat.MFATicket{ID: chat.NewID(), AccountID: chat.NewID(), Token: chat.NewToken(64), Expiry: chat.Now()}
	must(t, s.InsertTicket(c, tk))
	got, err := s.FetchTicketByToken(c, tk.Token)
	must(t, err)
	same(t, got, tk)
	tk.Validated = true
	must(t, s.UpdateTicket(c, tk))
	got, err = s.FetchTicketByToken(c, tk.Token)
	must(t, err)
	same(t, got.Validated, true)
	must(t, s.DeleteTicket(c, tk.ID))
	_, err = s.FetchTicketByToken(c, tk.Token)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.DeleteTicket(c, tk.ID), store.ErrNotFound)
}

func testRegistrationInvites(t *testing.T, s store.Store) {
	c := ctx(t)
	a := &chat.RegistrationInvite{Code: "first", Created: chat.TimeFromMillis(1000)}
	b := &chat.RegistrationInvite{Code: "second", Created: chat.TimeFromMillis(2000)}
	must(t, s.InsertRegistrationInvite(c, b))
	must(t, s.InsertRegistrationInvite(c, a))
	wantErr(t, s.InsertRegistrationInvite(c, a), store.ErrConflict)
	list, err := s.FetchRegistrationInvites(c)
	must(t, err)
	same(t, list, []*chat.RegistrationInvite{a, b})
	a.Used, a.UsedBy = true, ptr(chat.NewID())
	must(t, s.UpdateRegistrationInvite(c, a))
	got, err := s.FetchRegistrationInvite(c, "first")
	must(t, err)
	same(t, got, a)
	_, err = s.FetchRegistrationInvite(c, "nope")
	wantErr(t, err, store.ErrNotFound)
	must(t, s.DeleteRegistrationInvite(c, "second"))
	wantErr(t, s.DeleteRegistrationInvite(c, "second"), store.ErrNotFound)
	list, err = s.FetchRegistrationInvites(c)
	must(t, err)
	same(t, list, []*chat.RegistrationInvite{a})
}

func testSessions(t *testing.T, s store.Store) {
	c := ctx(t)
	user := chat.NewID()
	var sessions []*chat.Session
	for i := range 3 {
		se := &chat.Session{ID: chat.NewID(), UserID: user, Token: chat.NewToken(64), Name: fmt.Sprint("device ", i)}
		must(t, s.InsertSession(c, se))
		sessions = append(sessions, se)
	}
	other := &chat.Session{ID: chat.NewID(), UserID: chat.NewID(), Token: chat.NewToken(64), Name: "other"}
	must(t, s.InsertSession(c, other))
	wantErr(t, s.InsertSession(c, &chat.Session{ID: chat.NewID(), UserID: user, Token: other.Token}), store.ErrConflict)

	got, err := s.FetchSessionByToken(c, sessions[1].Token)
	must(t, err)
	same(t, got, sessions[1])
	_, err = s.FetchSessionByToken(c, "missing")
	wantErr(t, err, store.ErrNotFound)
	// With its user in one read; no user yet before onboarding.
	gotSe, gotUser, err := s.FetchSessionUser(c, sessions[1].Token)
	must(t, err)
	same(t, gotSe, sessions[1])
	same(t, gotUser == nil, true)
	u := newUser("Session", "0042")
	u.ID = user
	must(t, s.InsertUser(c, u))
	gotSe, gotUser, err = s.FetchSessionUser(c, sessions[2].Token)
	must(t, err)
	same(t, gotSe, sessions[2])
	same(t, gotUser, u)
	_, _, err = s.FetchSessionUser(c, "missing")
	wantErr(t, err, store.ErrNotFound)
	list, err := s.FetchSessions(c, user)
	must(t, err)
	same(t, list, sessions)

	sessions[0].Name = "renamed"
	sessions[0].LastSeen = ptr(chat.Now())
	must(t, s.UpdateSession(c, sessions[0]))
	got, err = s.FetchSession(c, sessions[0].ID)
	must(t, err)
	same(t, got, sessions[0])
	// Touching changes the last sighting alone, of every session named
	// that exists, and of no other.
	seen := chat.TimeOf(chat.Now().Add(time.Minute))
	must(t, s.TouchSessions(c, []chat.ID{chat.NewID(), sessions[0].ID, sessions[1].ID}, seen))
	sessions[0].LastSeen = &seen
	sessions[1].LastSeen = &seen
	got, err = s.FetchSession(c, sessions[0].ID)
	must(t, err)
	same(t, got, sessions[0])
	gotSe, _, err = s.FetchSessionUser(c, sessions[0].Token)
	must(t, err)
	same(t, gotSe, sessions[0])
	got, err = s.FetchSession(c, sessions[1].ID)
	must(t, err)
	same(t, got, sessions[1])
	got, err = s.FetchSession(c, sessions[2].ID)
	must(t, err)
	same(t, got, sessions[2])
	must(t, s.TouchSessions(c, []chat.ID{chat.NewID()}, seen))
	must(t, s.TouchSessions(c, nil, seen))
	if err := s.TouchSessions(c, make([]chat.ID, store.TouchSessionsMax+1), seen); err == nil {
		t.Errorf("TouchSessions took %d sessions", store.TouchSessionsMax+1)
	}

	removed, err := s.DeleteSessions(c, user, sessions[2].ID)
	must(t, err)
	same(t, removed, []chat.ID{sessions[0].ID, sessions[1].ID})
	list, err = s.FetchSessions(c, user)
	must(t, err)
	same(t, list, sessions[2:])
	_, err = s.FetchSession(c, other.ID)
	must(t, err)
	must(t, s.DeleteSession(c, sessions[2].ID))
	wantErr(t, s.DeleteSession(c, sessions[2].ID), store.ErrNotFound)
	removed, err = s.DeleteSessions(c, other.UserID, "")
	must(t, err)
	same(t, removed, []chat.ID{other.ID})
}

func newUser(name, disc string) *chat.User {
	return &chat.User{ID: chat.NewID(), Username: name, Discriminator: disc, Relationship: chat.RelationNone}
}

func testUsers(t *testing.T, s store.Store) {
	c := ctx(t)
	u := newUser("Ermine", "1000")
	u.DisplayName = ptr("Ermine Ü")
	u.Status = &chat.UserStatus{Text: ptr("hi"), Presence: ptr(chat.PresenceBusy)}
	u.Profile = &chat.UserProfile{Content: ptr("about me")}
	u.Badges = 3
	must(t, s.InsertUser(c, u))
	got, err := s.FetchUser(c, u.ID)
	must(t, err)
	same(t, got, u)

	// Username uniqueness is case-insensitive per discriminator.
	wantErr(t, s.InsertUser(c, newUser("ERMINE", "1000")), store.ErrConflict)
	v := newUser("ermine", "2000")
	must(t, s.InsertUser(c, v))
	unicode := newUser("Ласка", "3000")
	must(t, s.InsertUser(c, unicode))
	got, err = s.FetchUserByUsername(c, "ласка", "3000")
	must(t, err)
	same(t, got.ID, unicode.ID)

	got, err = s.FetchUserByUsername(c, "eRmInE", "2000")
	must(t, err)
	same(t, got.ID, v.ID)
	_, err = s.FetchUserByUsername(c, "ermine", "3000")
	wantErr(t, err, store.ErrNotFound)
	discs, err := s.FetchDiscriminators(c, "ERMINE")
	must(t, err)
	same(t, discs, []string{"1000", "2000"})

	list, err := s.FetchUsers(c, []chat.ID{u.ID, v.ID, chat.NewID()})
	must(t, err)
	same(t, len(list), 2)
	list, err = s.FetchUsers(c, nil)
	must(t, err)
	same(t, len(list), 0)

	v.Discriminator = "1000"
	wantErr(t, s.UpdateUser(c, v), store.ErrConflict)
	v.Discriminator = "2001"
	v.Username = "Stoat"
	must(t, s.UpdateUser(c, v))
	got, err = s.FetchUserByUsername(c, "stoat", "2001")
	must(t, err)
	same(t, got, v)

	must(t, s.DeleteUser(c, v.ID))
	_, err = s.FetchUser(c, v.ID)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.DeleteUser(c, v.ID), store.ErrNotFound)
}

func testRelationships(t *testing.T, s store.Store) {
	c := ctx(t)
	a, b, d := chat.NewID(), chat.NewID(), chat.NewID()
	st, err := s.FetchRelationship(c, a, b)
	must(t, err)
	same(t, st, chat.RelationNone)
	must(t, s.SetRelationship(c, a, b, chat.RelationOutgoing))
	must(t, s.SetRelationship(c, b, a, chat.RelationIncoming))
	must(t, s.SetRelationship(c, a, d, chat.RelationBlocked))
	must(t, s.SetRelationship(c, a, b, chat.RelationFriend))
	st, err = s.FetchRelationship(c, a, b)
	must(t, err)
	same(t, st, chat.RelationFriend)
	rel, err := s.FetchRelationships(c, a)
	must(t, err)
	want := []chat.Relationship{{ID: b, Status: chat.RelationFriend}, {ID: d, Status: chat.RelationBlocked}}
	slices.SortFunc(want, func(x, y chat.Relationship) int { return cmpID(x.ID, y.ID) })
	same(t, rel, want)
	must(t, s.SetRelationship(c, a, b, chat.RelationNone))
	rel, err = s.FetchRelationships(c, a)
	must(t, err)
	same(t, rel, []chat.Relationship{{ID: d, Status: chat.RelationBlocked}})
	// Deleting a user removes relationships on both sides.
	u := newUser("gone", "0002")
	u.ID = b
	must(t, s.InsertUser(c, u))
	must(t, s.DeleteUser(c, b))
	rel, err = s.FetchRelationships(c, b)
	must(t, err)
	same(t, len(rel), 0)
}

func cmpID(a, b chat.ID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func testBots(t *testing.T, s store.Store) {
	c := ctx(t)
	owner := chat.NewID()
	b1 := &chat.Bot{ID: chat.NewID(), Owner: owner, Token: chat.NewToken(64), Public: true, InteractionsURL: "https://x"}
	b2 := &chat.Bot{ID: chat.NewID(), Owner: owner, Token: chat.NewToken(64)}
	must(t, s.InsertBot(c, b1))
	must(t, s.InsertBot(c, b2))
	wantErr(t, s.InsertBot(c, &chat.Bot{ID: chat.NewID(), Owner: owner, Token: b1.Token}), store.ErrConflict)
	got, err := s.FetchBot(c, b1.ID)
	must(t, err)
	same(t, got, b1)
	got, err = s.FetchBotByToken(c, b2.Token)
	must(t, err)
	same(t, got, b2)
	list, err := s.FetchBotsByOwner(c, owner)
	must(t, err)
	same(t, list, []*chat.Bot{b1, b2})
	old := b1.Token
	b1.Token = chat.NewToken(64)
	must(t, s.UpdateBot(c, b1))
	_, err = s.FetchBotByToken(c, old)
	wantErr(t, err, store.ErrNotFound)
	must(t, s.DeleteBot(c, b2.ID))
	wantErr(t, s.DeleteBot(c, b2.ID), store.ErrNotFound)
}

func newServer(owner chat.ID) *chat.Server {
	return &chat.Server{ID: chat.NewID(), Owner: owner, Name: "Ermine HQ", DefaultPermissions: 4000322560}
}

func testServers(t *testing.T, s store.Store) {
	c := ctx(t)
	owner := chat.NewID()
	sv := newServer(owner)
	role := chat.NewID()
	sv.Roles = map[chat.ID]chat.Role{role: {ID: role, Name: "Mods", Permissions: chat.Override{A: 1, D: 2}, Colour: ptr("red"), Rank: 0}}
	sv.Categories = []chat.Category{{ID: "cat", Title: "Talk", Channels: []chat.ID{chat.NewID()}}}
	sv.SystemMessages = &chat.SystemMessageChannels{UserJoined: ptr(chat.NewID())}
	must(t, s.InsertServer(c, sv))
	wantErr(t, s.InsertServer(c, sv), store.ErrConflict)
	got, err := s.FetchServer(c, sv.ID)
	must(t, err)
	same(t, got, sv)
	list, err := s.FetchServers(c, []chat.ID{sv.ID, chat.NewID()})
	must(t, err)
	same(t, list, []*chat.Server{sv})

	// Deleting a server removes its channels and everything in them.
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: sv.ID, Name: "general"}
	must(t, s.InsertChannel(c, ch))
	msg := &chat.Message{ID: chat.NewID(), Channel: ch.ID, Author: owner, Content: ptr("hello")}
	must(t, s.InsertMessage(c, msg))
	must(t, s.InsertMember(c, &chat.Member{ID: chat.MemberID{Server: sv.ID, User: owner}, JoinedAt: chat.Now()}))
	must(t, s.InsertBan(c, &chat.ServerBan{ID: chat.MemberID{Server: sv.ID, User: chat.NewID()}}))
	must(t, s.InsertInvite(c, &chat.Invite{Type: "Server", Code: "abcdefgh", Server: sv.ID, Channel: ch.ID, Creator: owner}))
	emoji := &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Server", ID: sv.ID}, CreatorID: owner, Name: "e"}
	must(t, s.InsertEmoji(c, emoji))

	sv.Name = "Renamed"
	sv.Channels = []chat.ID{ch.ID}
	must(t, s.UpdateServer(c, sv))
	got, err = s.FetchServer(c, sv.ID)
	must(t, err)
	same(t, got, sv)

	must(t, s.DeleteServer(c, sv.ID))
	_, err = s.FetchServer(c, sv.ID)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchChannel(c, ch.ID)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchMessage(c, msg.ID)
	wantErr(t, err, store.ErrNotFound)
	n, err := s.CountMembers(c, sv.ID)
	must(t, err)
	same(t, n, 0)
	bans, err := s.FetchBans(c, sv.ID)
	must(t, err)
	same(t, len(bans), 0)
	_, err = s.FetchInvite(c, "abcdefgh")
	wantErr(t, err, store.ErrNotFound)
	_, err = s.FetchEmoji(c, emoji.ID)
	must(t, err) // emoji are detached by the app, not deleted
	wantErr(t, s.DeleteServer(c, sv.ID), store.ErrNotFound)
}

func testMembers(t *testing.T, s store.Store) {
	c := ctx(t)
	server := chat.NewID()
	var users []chat.ID
	for i := range 3 {
		u := chat.NewID()
		users = append(users, u)
		m := &chat.Member{ID: chat.MemberID{Server: server, User: u}, JoinedAt: chat.TimeFromMillis(int64(1000 + i))}
		must(t, s.InsertMember(c, m))
	}
	wantErr(t, s.InsertMember(c, &chat.Member{ID: chat.MemberID{Server: server, User: users[0]}, JoinedAt: chat.Now()}), store.ErrConflict)
	n, err := s.CountMembers(c, server)
	must(t, err)
	same(t, n, 3)
	list, err := s.FetchMembers(c, server)
	must(t, err)
	same(t, len(list), 3)
	for i, m := range list {
		same(t, m.ID.User, users[i])
	}
	other := chat.NewID()
	must(t, s.InsertMember(c, &chat.Member{ID: chat.MemberID{Server: other, User: users[0]}, JoinedAt: chat.TimeFromMillis(500)}))
	mine, err := s.FetchMemberships(c, users[0])
	must(t, err)
	same(t, []chat.ID{mine[0].ID.Server, mine[1].ID.Server}, []chat.ID{other, server})

	m, err := s.FetchMember(c, server, users[1])
	must(t, err)
	m.Nickname = ptr("Nick")
	m.Roles = []chat.ID{chat.NewID()}
	m.Timeout = ptr(chat.Now())
	must(t, s.UpdateMember(c, m))
	got, err := s.FetchMember(c, server, users[1])
	must(t, err)
	same(t, got, m)
	must(t, s.DeleteMember(c, server, users[1]))
	_, err = s.FetchMember(c, server, users[1])
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.DeleteMember(c, server, users[1]), store.ErrNotFound)
	wantErr(t, s.UpdateMember(c, m), store.ErrNotFound)

	// Kept timeouts are taken back once.
	until := chat.TimeFromMillis(4102444800000)
	kept, err := s.TakeTimeout(c, server, users[1])
	must(t, err)
	if kept != nil {
		t.Fatalf("timeout kept before any: %v", kept)
	}
	must(t, s.KeepTimeout(c, server, users[1], chat.TimeFromMillis(1)))
	must(t, s.KeepTimeout(c, server, users[1], until))
	kept, err = s.TakeTimeout(c, server, users[1])
	must(t, err)
	same(t, kept, &until)
	kept, err = s.TakeTimeout(c, server, users[1])
	must(t, err)
	if kept != nil {
		t.Fatalf("timeout taken twice: %v", kept)
	}
}

func testBans(t *testing.T, s store.Store) {
	c := ctx(t)
	server, user := chat.NewID(), chat.NewID()
	b := &chat.ServerBan{ID: chat.MemberID{Server: server, User: user}, Reason: ptr("spam")}
	must(t, s.InsertBan(c, b))
	b.Reason = ptr("worse")
	must(t, s.InsertBan(c, b)) // replaces
	got, err := s.FetchBan(c, server, user)
	must(t, err)
	same(t, got, b)
	list, err := s.FetchBans(c, server)
	must(t, err)
	same(t, list, []*chat.ServerBan{b})
	must(t, s.DeleteBan(c, server, user))
	_, err = s.FetchBan(c, server, user)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.DeleteBan(c, server, user), store.ErrNotFound)
}

func testChannels(t *testing.T, s store.Store) {
	c := ctx(t)
	a, b, d := chat.NewID(), chat.NewID(), chat.NewID()
	saved := &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: chat.NewID(), User: a}
	dm := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: ptr(false), Recipients: []chat.ID{a, b}}
	group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "friends", Owner: b,
		Recipients: []chat.ID{b, d}, Permissions: ptr(int64(3145728))}
	server := chat.NewID()
	text := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: server, Name: "general",
		DefaultPermissions: &chat.Override{A: 1, D: 0}, RolePermissions: map[chat.ID]chat.Override{chat.NewID(): {A: 0, D: 4}}}
	voice := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: server, Name: "talk",
		Voice: &chat.VoiceInformation{MaxUsers: ptr(uint32(10))}}
	for _, ch := range []*chat.Channel{saved, dm, group, text, voice} {
		must(t, s.InsertChannel(c, ch))
	}
	// One DM per pair in either order, one SavedMessages per user.
	wantErr(t, s.InsertChannel(c, &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(),
		Active: ptr(true), Recipients: []chat.ID{b, a}}), store.ErrConflict)
	wantErr(t, s.InsertChannel(c, &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: chat.NewID(), User: a}), store.ErrConflict)

	got, err := s.FetchChannel(c, text.ID)
	must(t, err)
	same(t, got, text)
	got, err = s.FetchDirectMessage(c, b, a)
	must(t, err)
	same(t, got, dm)
	_, err = s.FetchDirectMessage(c, a, d)
	wantErr(t, err, store.ErrNotFound)
	got, err = s.FetchSavedMessages(c, a)
	must(t, err)
	same(t, got, saved)
	list, err := s.FetchServerChannels(c, server)
	must(t, err)
	same(t, list, []*chat.Channel{text, voice})
	list, err = s.FetchPrivateChannels(c, a)
	must(t, err)
	same(t, list, []*chat.Channel{saved, dm})
	list, err = s.FetchChannels(c, []chat.ID{group.ID, voice.ID, chat.NewID()})
	must(t, err)
	same(t, len(list), 2)

	// Recipients follow updates.
	group.Recipients = []chat.ID{b, d, a}
	group.Description = ptr("desc")
	must(t, s.UpdateChannel(c, group))
	list, err = s.FetchPrivateChannels(c, a)
	must(t, err)
	same(t, list, []*chat.Channel{saved, dm, group})
	group.Recipients = []chat.ID{b}
	must(t, s.UpdateChannel(c, group))
	list, err = s.FetchPrivateChannels(c, d)
	must(t, err)
	same(t, len(list), 0)

	m1, m2 := chat.NewID(), chat.NewID()
	must(t, s.SetLastMessage(c, dm.ID, m2))
	must(t, s.SetLastMessage(c, dm.ID, m1)) // older: ignored
	got, err = s.FetchChannel(c, dm.ID)
	must(t, err)
	same(t, *got.LastMessageID, m2)
	same(t, *got.Active, false) // whether a DM is active is not the store's rule

	must(t, s.DeleteChannel(c, dm.ID))
	_, err = s.FetchChannel(c, dm.ID)
	wantErr(t, err, store.ErrNotFound)
	list, err = s.FetchPrivateChannels(c, a)
	must(t, err)
	same(t, list, []*chat.Channel{saved})
	wantErr(t, s.DeleteChannel(c, dm.ID), store.ErrNotFound)
	wantErr(t, s.UpdateChannel(c, dm), store.ErrNotFound)
	wantErr(t, s.SetLastMessage(c, dm.ID, m2), store.ErrNotFound)
}

// testServersChannels checks the channel lists of many servers at once
// against FetchServerChannels after every kind of channel write, made
// directly and inside a transaction, read twice each time (a store may
// keep the lists; they must never be stale).
func testServersChannels(t *testing.T, s store.Store) {
	c := ctx(t)
	one, two, empty := newServer(chat.NewID()), newServer(chat.NewID()), newServer(chat.NewID())
	for _, sv := range []*chat.Server{one, two, empty} {
		must(t, s.InsertServer(c, sv))
	}
	general := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: one.ID, Name: "general"}
	talk := &chat.Channel{ChannelType: chat.ChannelVoice, ID: chat.NewID(), Server: one.ID, Name: "talk"}
	other := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: two.ID, Name: "other"}
	for _, ch := range []*chat.Channel{general, talk, other} {
		must(t, s.InsertChannel(c, ch))
	}
	check := func(step string) {
		t.Helper()
		for range 2 {
			got, err := s.FetchServersChannels(c, []chat.ID{one.ID, two.ID, empty.ID, chat.NewID()})
			must(t, err)
			if len(got) != 3 {
				t.Fatalf("%s: lists of %d servers, want the 3 that exist", step, len(got))
			}
			for _, id := range []chat.ID{one.ID, two.ID, empty.ID} {
				want, err := s.FetchServerChannels(c, id)
				must(t, err)
				if want == nil {
					want = []*chat.Channel{}
				}
				if d := cmp.Diff(want, got[id]); d != "" {
					t.Fatalf("%s: channels of %s (-want +got):\n%s", step, id, d)
				}
			}
		}
	}
	check("inserted")
	general.Name = "lobby"
	must(t, s.UpdateChannel(c, general))
	check("renamed")
	must(t, s.SetLastMessage(c, general.ID, chat.NewID()))
	check("last message")
	must(t, s.InTx(c, func(tx store.Store) error {
		other.Description = ptr("in a transaction")
		if err := tx.UpdateChannel(c, other); err != nil {
			return err
		}
		lists, err := tx.FetchServersChannels(c, []chat.ID{two.ID})
		if err != nil {
			return err
		}
		same(t, lists[two.ID], []*chat.Channel{other})
		return nil
	}))
	check("updated in a transaction")
	must(t, s.DeleteChannel(c, talk.ID))
	check("deleted")
	must(t, s.InsertChannel(c, &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: empty.ID, Name: "first"}))
	check("first channel")
	got, err := s.FetchServersChannels(c, nil)
	must(t, err)
	same(t, len(got), 0)
}

func testChannelAccess(t *testing.T, s store.Store) {
	c := ctx(t)
	owner, member, stranger := chat.NewID(), chat.NewID(), chat.NewID()
	sv := newServer(owner)
	must(t, s.InsertServer(c, sv))
	text := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: sv.ID, Name: "general"}
	dm := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: ptr(true), Recipients: []chat.ID{owner, member}}
	orphan := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: chat.NewID(), Name: "orphan"}
	for _, ch := range []*chat.Channel{text, dm, orphan} {
		must(t, s.InsertChannel(c, ch))
	}
	mem := &chat.Member{ID: chat.MemberID{Server: sv.ID, User: member}, JoinedAt: chat.Now(), Roles: []chat.ID{chat.NewID()}}
	must(t, s.InsertMember(c, mem))
	// A membership of another server must not be picked up.
	must(t, s.InsertMember(c, &chat.Member{ID: chat.MemberID{Server: chat.NewID(), User: stranger}, JoinedAt: chat.Now()}))

	ch, gotServer, gotMember, err := s.FetchChannelAccess(c, text.ID, member)
	must(t, err)
	same(t, ch, text)
	same(t, gotServer, sv)
	same(t, gotMember, mem)
	ch, gotServer, gotMember, err = s.FetchChannelAccess(c, text.ID, stranger)
	must(t, err)
	same(t, ch, text)
	same(t, gotServer, sv)
	same(t, gotMember == nil, true)
	ch, gotServer, gotMember, err = s.FetchChannelAccess(c, dm.ID, member)
	must(t, err)
	same(t, ch, dm)
	same(t, gotServer == nil && gotMember == nil, true)
	ch, gotServer, _, err = s.FetchChannelAccess(c, orphan.ID, member)
	must(t, err)
	same(t, ch, orphan)
	same(t, gotServer == nil, true)
	_, _, _, err = s.FetchChannelAccess(c, chat.NewID(), member)
	wantErr(t, err, store.ErrNotFound)

	// With the session and its user in one read.
	memberUser := newUser("Access", "0007")
	memberUser.ID = member
	must(t, s.InsertUser(c, memberUser))
	memberSe := &chat.Session{ID: chat.NewID(), UserID: member, Token: chat.NewToken(64), Name: "member"}
	strangerSe := &chat.Session{ID: chat.NewID(), UserID: stranger, Token: chat.NewToken(64), Name: "no user yet"}
	must(t, s.InsertSession(c, memberSe))
	must(t, s.InsertSession(c, strangerSe))
	got, err := s.FetchSessionChannelAccess(c, memberSe.Token, text.ID)
	must(t, err)
	same(t, got, &store.SessionChannel{Session: memberSe, User: memberUser, Channel: text, Server: sv, Member: mem})
	got, err = s.FetchSessionChannelAccess(c, strangerSe.Token, text.ID)
	must(t, err)
	same(t, got, &store.SessionChannel{Session: strangerSe, Channel: text, Server: sv})
	got, err = s.FetchSessionChannelAccess(c, memberSe.Token, dm.ID)
	must(t, err)
	same(t, got, &store.SessionChannel{Session: memberSe, User: memberUser, Channel: dm})
	got, err = s.FetchSessionChannelAccess(c, memberSe.Token, orphan.ID)
	must(t, err)
	same(t, got, &store.SessionChannel{Session: memberSe, User: memberUser, Channel: orphan})
	got, err = s.FetchSessionChannelAccess(c, memberSe.Token, chat.NewID())
	must(t, err)
	same(t, got, &store.SessionChannel{Session: memberSe, User: memberUser})
	_, err = s.FetchSessionChannelAccess(c, "missing", text.ID)
	wantErr(t, err, store.ErrNotFound)
}

func testReadyFacts(t *testing.T, s store.Store) {
	c := ctx(t)
	me, friend, blocked, other := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	must(t, s.SetRelationship(c, me, friend, chat.RelationFriend))
	must(t, s.SetRelationship(c, me, blocked, chat.RelationBlocked))
	must(t, s.SetRelationship(c, other, friend, chat.RelationFriend))
	saved := &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: chat.NewID(), User: me}
	dm := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: ptr(true), Recipients: []chat.ID{me, friend}}
	group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "group", Owner: friend, Recipients: []chat.ID{friend, me}}
	notMine := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: ptr(true), Recipients: []chat.ID{other, friend}}
	for _, ch := range []*chat.Channel{saved, dm, group, notMine} {
		must(t, s.InsertChannel(c, ch))
	}
	// Joined later first, an empty server, a server that is gone, and a
	// server of someone else.
	later, first, empty, theirs := newServer(friend), newServer(friend), newServer(friend), newServer(other)
	for _, sv := range []*chat.Server{later, first, empty, theirs} {
		must(t, s.InsertServer(c, sv))
	}
	general := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: first.ID, Name: "general"}
	talk := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: later.ID, Name: "talk"}
	hidden := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: theirs.ID, Name: "theirs"}
	for _, ch := range []*chat.Channel{general, talk, hidden} {
		must(t, s.InsertChannel(c, ch))
	}
	now := chat.Now()
	join := func(server chat.ID, user chat.ID, ago time.Duration) *chat.Member {
		m := &chat.Member{ID: chat.MemberID{Server: server, User: user}, JoinedAt: chat.TimeOf(now.Add(-ago)), Roles: []chat.ID{chat.NewID()}}
		must(t, s.InsertMember(c, m))
		return m
	}
	mFirst := join(first.ID, me, 3*time.Hour)
	mGone := join(chat.NewID(), me, 2*time.Hour)
	mLater := join(later.ID, me, time.Hour)
	mEmpty := join(empty.ID, me, time.Minute)
	join(theirs.ID, other, time.Hour)
	emoji := func(server chat.ID) *chat.Emoji {
		e := &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Server", ID: server}, CreatorID: friend, Name: "e"}
		must(t, s.InsertEmoji(c, e))
		return e
	}
	e1, e2 := emoji(later.ID), emoji(first.ID)
	emoji(theirs.ID)
	// Policy changes made after me's id only, oldest first.
	policy := func(at time.Time) chat.PolicyChange {
		p := chat.PolicyChange{CreatedTime: chat.TimeOf(at), EffectiveTime: chat.TimeOf(at), Description: "terms", URL: "https://example.com/terms"}
		must(t, s.InsertPolicyChange(c, &p))
		return p
	}
	p2 := policy(me.Time().Add(2 * time.Minute))
	p1 := policy(me.Time().Add(time.Minute))
	policy(me.Time().Add(-time.Hour))

	got, err := s.FetchReadyFacts(c, me)
	must(t, err)
	want := &store.ReadyFacts{
		Private:       sortedByID([]*chat.Channel{saved, dm, group}),
		Memberships:   []*chat.Member{mFirst, mGone, mLater, mEmpty},
		Servers:       []*chat.Server{first, later, empty},
		Channels:      map[chat.ID][]*chat.Channel{first.ID: {general}, later.ID: {talk}, empty.ID: {}},
		Emojis:        []*chat.Emoji{e1, e2},
		PolicyChanges: []chat.PolicyChange{p1, p2},
	}
	want.Relationships, err = s.FetchRelationships(c, me)
	must(t, err)
	same(t, len(want.Relationships), 2)
	same(t, got, want)
	// The same as the separate reads.
	private, err := s.FetchPrivateChannels(c, me)
	must(t, err)
	same(t, got.Private, private)
	members, err := s.FetchMemberships(c, me)
	must(t, err)
	same(t, got.Memberships, members)
	emojis, err := s.FetchServerEmojis(c, []chat.ID{first.ID, later.ID, empty.ID})
	must(t, err)
	same(t, got.Emojis, emojis)

	// A channel added since shows in the next read.
	more := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: empty.ID, Name: "new"}
	must(t, s.InsertChannel(c, more))
	got, err = s.FetchReadyFacts(c, me)
	must(t, err)
	want.Channels[empty.ID] = []*chat.Channel{more}
	same(t, got, want)

	got, err = s.FetchReadyFacts(c, chat.NewID())
	must(t, err)
	same(t, got, &store.ReadyFacts{Channels: map[chat.ID][]*chat.Channel{}, PolicyChanges: []chat.PolicyChange{p1, p2}})

	// With a session and its user in one read: the same facts, those of
	// the session's user (with only the policy changes since they signed
	// up); no user before onboarding; an unknown token is not found.
	se := &chat.Session{ID: chat.NewID(), UserID: me, Token: chat.NewToken(64), Name: "ready"}
	must(t, s.InsertSession(c, se))
	sr, err := s.FetchSessionReadyFacts(c, se.Token)
	must(t, err)
	same(t, sr, &store.SessionReady{Session: se, Facts: want})
	u := newUser("Ready", "0042")
	u.ID = me
	must(t, s.InsertUser(c, u))
	sr, err = s.FetchSessionReadyFacts(c, se.Token)
	must(t, err)
	same(t, sr, &store.SessionReady{Session: se, User: u, Facts: want})
	theirSession := &chat.Session{ID: chat.NewID(), UserID: other, Token: chat.NewToken(64), Name: "theirs"}
	must(t, s.InsertSession(c, theirSession))
	sr, err = s.FetchSessionReadyFacts(c, theirSession.Token)
	must(t, err)
	theirFacts, err := s.FetchReadyFacts(c, other)
	must(t, err)
	same(t, sr.Facts, theirFacts)
	same(t, len(sr.Facts.Servers), 1)
	same(t, sr.Facts.Servers[0].ID, theirs.ID)
	_, err = s.FetchSessionReadyFacts(c, chat.NewToken(64))
	wantErr(t, err, store.ErrNotFound)
	must(t, s.DeleteSession(c, se.ID))
	_, err = s.FetchSessionReadyFacts(c, se.Token)
	wantErr(t, err, store.ErrNotFound)
}

func sortedByID(cs []*chat.Channel) []*chat.Channel {
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b *chat.Channel) int { return strings.Compare(string(a.ID), string(b.ID)) })
	return out
}

func testMessages(t *testing.T, s store.Store) {
	c := ctx(t)
	channel, other, author := chat.NewID(), chat.NewID(), chat.NewID()
	var ids []chat.ID
	for i := range 10 {
		m := &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr(fmt.Sprint("message ", i))}
		must(t, s.InsertMessage(c, m))
		ids = append(ids, m.ID)
	}
	must(t, s.InsertMessage(c, &chat.Message{ID: chat.NewID(), Channel: other, Author: author, Content: ptr("elsewhere")}))

	full := &chat.Message{ID: chat.NewID(), Channel: other, Author: author, Content: ptr("full"),
		Nonce:       ptr("nonce"),
		Attachments: []chat.File{{ID: "f", Tag: "attachments", Filename: "a.png", Metadata: chat.Metadata{Type: "Image", Width: ptr(1), Height: ptr(2)}, ContentType: "image/png", Size: 9}},
		Embeds:      []chat.Embed{{Type: "Text", Title: ptr("t"), Description: ptr("d")}},
		Mentions:    []chat.ID{author}, Replies: []chat.ID{ids[0]},
		Reactions:    map[string][]chat.ID{"👍": {author}},
		Interactions: &chat.Interactions{Reactions: []string{"👍"}, RestrictReactions: true},
		Masquerade:   &chat.Masquerade{Name: ptr("m"), Colour: ptr("red")},
		Edited:       ptr(chat.Now()), Flags: 1,
		User: &chat.User{ID: author}, Member: &chat.Member{},
	}
	must(t, s.InsertMessage(c, full))
	got, err := s.FetchMessage(c, full.ID)
	must(t, err)
	want := *full
	want.User, want.Member = nil, nil // never stored
	same(t, got, &want)
	wantErr(t, s.InsertMessage(c, full), store.ErrConflict)

	// A batch lands whole or not at all.
	batch := make([]*chat.Message, 450)
	for i := range batch {
		batch[i] = &chat.Message{ID: chat.NewID(), Channel: chat.NewID(), Author: author, Content: ptr("batch")}
	}
	batch[3].Pinned = ptr(true)
	must(t, s.InsertMessages(c, batch))
	for _, m := range []*chat.Message{batch[0], batch[3], batch[449]} {
		got, err := s.FetchMessage(c, m.ID)
		must(t, err)
		same(t, got, m)
	}
	dup := []*chat.Message{{ID: chat.NewID(), Channel: channel, Author: author}, batch[10]}
	wantErr(t, s.InsertMessages(c, dup), store.ErrConflict)
	_, err = s.FetchMessage(c, dup[0].ID)
	wantErr(t, err, store.ErrNotFound)
	// Past one statement's rows too: the conflict is in the last one.
	big := make([]*chat.Message, 300)
	for i := range big {
		big[i] = &chat.Message{ID: chat.NewID(), Channel: channel, Author: author}
	}
	big[299] = batch[11]
	wantErr(t, s.InsertMessages(c, big), store.ErrConflict)
	_, err = s.FetchMessage(c, big[0].ID)
	wantErr(t, err, store.ErrNotFound)
	must(t, s.InsertMessages(c, nil))

	page := func(q store.MessageQuery) []chat.ID {
		t.Helper()
		q.Channel = channel
		list, err := s.FetchMessages(c, q)
		must(t, err)
		out := make([]chat.ID, len(list))
		for i, m := range list {
			out[i] = m.ID
		}
		return out
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	same(t, page(store.MessageQuery{Limit: 3}), rev[:3])
	same(t, page(store.MessageQuery{Limit: 3, Sort: store.SortOldest}), ids[:3])
	same(t, page(store.MessageQuery{Limit: 50, Before: ids[5]}), []chat.ID{ids[4], ids[3], ids[2], ids[1], ids[0]})
	same(t, page(store.MessageQuery{Limit: 2, After: ids[5], Sort: store.SortOldest}), []chat.ID{ids[6], ids[7]})
	same(t, page(store.MessageQuery{Limit: 50, After: ids[2], Before: ids[5]}), []chat.ID{ids[4], ids[3]})
	// nearby: limit/2+1 at or after, then limit/2+1 before.
	same(t, page(store.MessageQuery{Limit: 4, Nearby: ids[5]}), []chat.ID{ids[5], ids[6], ids[7], ids[4], ids[3], ids[2]})

	byID, err := s.FetchMessagesByID(c, channel, []chat.ID{ids[1], ids[2], full.ID})
	must(t, err)
	same(t, len(byID), 2)

	m, err := s.FetchMessage(c, ids[0])
	must(t, err)
	m.Content = ptr("edited")
	m.Pinned = ptr(true)
	m.Edited = ptr(chat.Now())
	m.Author = chat.NewID() // a claim hands a message to another author
	must(t, s.UpdateMessage(c, m))
	got, err = s.FetchMessage(c, ids[0])
	must(t, err)
	same(t, got, m)
	byAuthor, err := s.FetchMessagesByAuthor(c, m.Author, "", 10)
	must(t, err)
	same(t, len(byAuthor), 1)

	must(t, s.DeleteMessage(c, ids[9]))
	wantErr(t, s.DeleteMessage(c, ids[9]), store.ErrNotFound)
	deleted, err := s.DeleteMessages(c, channel, []chat.ID{ids[8], ids[7], ids[9], full.ID})
	must(t, err)
	same(t, deleted, []chat.ID{ids[7], ids[8]})
	_, err = s.FetchMessage(c, full.ID)
	must(t, err) // other channel: untouched
	wantErr(t, s.UpdateMessage(c, &chat.Message{ID: ids[9], Channel: channel}), store.ErrNotFound)
}

func testMessageSearch(t *testing.T, s store.Store) {
	c := ctx(t)
	channel := chat.NewID()
	texts := []string{"the quick brown fox", "a lazy dog", "quick quick quick", "nothing here", `tricky "quote" OR NEAR(*)`}
	var ids []chat.ID
	for i, text := range texts {
		m := &chat.Message{ID: chat.NewID(), Channel: channel, Author: chat.NewID(), Content: ptr(text)}
		if i == 1 {
			m.Pinned = ptr(true)
		}
		must(t, s.InsertMessage(c, m))
		ids = append(ids, m.ID)
	}
	must(t, s.InsertMessage(c, &chat.Message{ID: chat.NewID(), Channel: chat.NewID(), Author: chat.NewID(), Content: ptr("quick elsewhere")}))
	find := func(q store.MessageSearch) []chat.ID {
		t.Helper()
		q.Channel = channel
		if q.Limit == 0 {
			q.Limit = 50
		}
		list, err := s.SearchMessages(c, q)
		must(t, err)
		out := make([]chat.ID, len(list))
		for i, m := range list {
			out[i] = m.ID
		}
		return out
	}
	same(t, find(store.MessageSearch{Query: "QUICK", Sort: store.SortLatest}), []chat.ID{ids[2], ids[0]})
	same(t, find(store.MessageSearch{Query: "quick", Sort: store.SortOldest}), []chat.ID{ids[0], ids[2]})
	same(t, find(store.MessageSearch{Query: "quick"}), []chat.ID{ids[2], ids[0]}) // relevance: more matches first
	same(t, find(store.MessageSearch{Query: "quick fox"}), []chat.ID{ids[0]})
	same(t, find(store.MessageSearch{Query: `"quote" OR NEAR(*`}), []chat.ID{ids[4]})
	same(t, len(find(store.MessageSearch{Query: "***"})), 0)
	same(t, find(store.MessageSearch{Pinned: true}), []chat.ID{ids[1]})
	same(t, find(store.MessageSearch{Query: "quick", Limit: 1, Sort: store.SortLatest}), []chat.ID{ids[2]})
	same(t, find(store.MessageSearch{Query: "quick", Before: ids[2], Sort: store.SortLatest}), []chat.ID{ids[0]})

	// The index follows edits and deletes.
	m, err := s.FetchMessage(c, ids[3])
	must(t, err)
	m.Content = ptr("now quick too")
	must(t, s.UpdateMessage(c, m))
	same(t, find(store.MessageSearch{Query: "quick", Sort: store.SortOldest}), []chat.ID{ids[0], ids[2], ids[3]})
	must(t, s.DeleteMessage(c, ids[2]))
	same(t, find(store.MessageSearch{Query: "quick", Sort: store.SortOldest}), []chat.ID{ids[0], ids[3]})
}

func testEmojis(t *testing.T, s store.Store) {
	c := ctx(t)
	s1, s2 := chat.NewID(), chat.NewID()
	e1 := &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Server", ID: s1}, CreatorID: chat.NewID(), Name: "one", Animated: true}
	e2 := &chat.Emoji{ID: chat.NewID(), Parent: chat.EmojiParent{Type: "Server", ID: s2}, CreatorID: chat.NewID(), Name: "two"}
	must(t, s.InsertEmoji(c, e1))
	must(t, s.InsertEmoji(c, e2))
	wantErr(t, s.InsertEmoji(c, e1), store.ErrConflict)
	got, err := s.FetchEmoji(c, e1.ID)
	must(t, err)
	same(t, got, e1)
	list, err := s.FetchServerEmojis(c, []chat.ID{s1, s2})
	must(t, err)
	same(t, list, []*chat.Emoji{e1, e2})
	must(t, s.DetachEmojis(c, s1))
	list, err = s.FetchServerEmojis(c, []chat.ID{s1})
	must(t, err)
	same(t, len(list), 0)
	got, err = s.FetchEmoji(c, e1.ID)
	must(t, err)
	same(t, got.Parent, chat.EmojiParent{Type: "Detached"})
	detached, err := s.FetchDetachedEmojis(c)
	must(t, err)
	same(t, detached, []*chat.Emoji{got})
	e2.Name = "renamed"
	must(t, s.UpdateEmoji(c, e2))
	got, err = s.FetchEmoji(c, e2.ID)
	must(t, err)
	same(t, got, e2)
	must(t, s.DeleteEmoji(c, e2.ID))
	wantErr(t, s.DeleteEmoji(c, e2.ID), store.ErrNotFound)
}

func testInvites(t *testing.T, s store.Store) {
	c := ctx(t)
	server := chat.NewID()
	si := &chat.Invite{Type: "Server", Code: "AbCd2345", Server: server, Channel: chat.NewID(), Creator: chat.NewID()}
	gi := &chat.Invite{Type: "Group", Code: "ZxYw6789", Channel: chat.NewID(), Creator: chat.NewID()}
	must(t, s.InsertInvite(c, si))
	must(t, s.InsertInvite(c, gi))
	wantErr(t, s.InsertInvite(c, si), store.ErrConflict)
	got, err := s.FetchInvite(c, "AbCd2345")
	must(t, err)
	same(t, got, si)
	_, err = s.FetchInvite(c, "abcd2345") // codes are case-sensitive
	wantErr(t, err, store.ErrNotFound)
	list, err := s.FetchServerInvites(c, server)
	must(t, err)
	same(t, list, []*chat.Invite{si})
	gi2 := &chat.Invite{Type: "Group", Code: "QrSt2345", Channel: gi.Channel, Creator: gi.Creator}
	must(t, s.InsertInvite(c, gi2))
	list, err = s.FetchChannelInvites(c, gi.Channel)
	must(t, err)
	same(t, list, []*chat.Invite{gi2, gi})
	list, err = s.FetchChannelInvites(c, si.Channel)
	must(t, err)
	same(t, list, []*chat.Invite{si})
	// Deleting a channel deletes its invites.
	must(t, s.InsertChannel(c, &chat.Channel{ChannelType: chat.ChannelGroup, ID: gi.Channel, Name: "g", Owner: gi.Creator, Recipients: []chat.ID{gi.Creator}}))
	must(t, s.DeleteChannel(c, gi.Channel))
	_, err = s.FetchInvite(c, gi.Code)
	wantErr(t, err, store.ErrNotFound)
	list, err = s.FetchChannelInvites(c, gi.Channel)
	must(t, err)
	same(t, len(list), 0)
	must(t, s.DeleteInvite(c, si.Code))
	wantErr(t, s.DeleteInvite(c, si.Code), store.ErrNotFound)
}

func testAuditLogs(t *testing.T, s store.Store) {
	c := ctx(t)
	owner, mod, victim := chat.NewID(), chat.NewID(), chat.NewID()
	sv := newServer(owner)
	must(t, s.InsertServer(c, sv))
	other := chat.NewID()
	reason := "spam"
	name := "general"
	count := 3
	entries := []*chat.AuditLogEntry{
		{ID: chat.NewID(), Server: sv.ID, User: owner, Action: chat.AuditAction{Type: chat.AuditChannelCreate, Channel: chat.NewID(), Name: &name}},
		{ID: chat.NewID(), Server: sv.ID, User: mod, Reason: &reason, Action: chat.AuditAction{Type: chat.AuditMemberKick, User: victim}},
		{ID: chat.NewID(), Server: sv.ID, User: mod, Action: chat.AuditAction{Type: chat.AuditBanCreate, User: victim}},
		{ID: chat.NewID(), Server: sv.ID, User: owner, Action: chat.AuditAction{Type: chat.AuditMessageBulkDelete, Channel: chat.NewID(), Count: &count}},
		{ID: chat.NewID(), Server: sv.ID, User: owner, Action: chat.AuditAction{Type: chat.AuditServerEdit, Partial: &chat.Partial{"name": "x"}, Remove: []string{"Icon"}}},
		{ID: chat.NewID(), Server: other, User: owner, Action: chat.AuditAction{Type: chat.AuditMemberKick, User: victim}},
	}
	for _, e := range entries {
		must(t, s.InsertAuditLogEntry(c, e))
	}
	wantErr(t, s.InsertAuditLogEntry(c, entries[0]), store.ErrConflict)
	rev := func(es ...*chat.AuditLogEntry) []*chat.AuditLogEntry {
		out := slices.Clone(es)
		slices.Reverse(out)
		return out
	}
	tests := []struct {
		name string
		q    store.AuditLogQuery
		want []*chat.AuditLogEntry
	}{
		{"all, newest first", store.AuditLogQuery{Server: sv.ID, Limit: 50}, rev(entries[:5]...)},
		{"by user", store.AuditLogQuery{Server: sv.ID, Limit: 50, User: mod}, rev(entries[1], entries[2])},
		{"by target", store.AuditLogQuery{Server: sv.ID, Limit: 50, Target: string(victim)}, rev(entries[1], entries[2])},
		{"by types", store.AuditLogQuery{Server: sv.ID, Limit: 50, Types: []string{chat.AuditBanCreate, chat.AuditServerEdit}}, rev(entries[2], entries[4])},
		{"before", store.AuditLogQuery{Server: sv.ID, Limit: 50, Before: entries[2].ID}, rev(entries[0], entries[1])},
		{"after", store.AuditLogQuery{Server: sv.ID, Limit: 50, After: entries[2].ID}, rev(entries[3], entries[4])},
		{"limit", store.AuditLogQuery{Server: sv.ID, Limit: 2}, rev(entries[3], entries[4])},
		{"other server", store.AuditLogQuery{Server: other, Limit: 50}, entries[5:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.FetchAuditLogEntries(c, tt.q)
			must(t, err)
			same(t, got, tt.want)
		})
	}
	// Deleting a server deletes its audit log, and only its.
	must(t, s.DeleteServer(c, sv.ID))
	got, err := s.FetchAuditLogEntries(c, store.AuditLogQuery{Server: sv.ID, Limit: 50})
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("entries after server deletion: %d", len(got))
	}
	got, err = s.FetchAuditLogEntries(c, store.AuditLogQuery{Server: other, Limit: 50})
	must(t, err)
	same(t, got, entries[5:])
}

func testFiles(t *testing.T, s store.Store) {
	c := ctx(t)
	old := chat.TimeOf(time.Now().Add(-2 * time.Hour))
	f1 := &chat.FileRecord{File: chat.File{ID: chat.NewToken(42), Tag: "attachments", Filename: "a.txt",
		Metadata: chat.Metadata{Type: "Text"}, ContentType: "text/plain", Size: 5}, Hash: "h1", UploaderID: chat.NewID(), UploadedAt: old}
	f2 := &chat.FileRecord{File: chat.File{ID: chat.NewToken(42), Tag: "avatars", Filename: "b.png",
		Metadata: chat.Metadata{Type: "Image", Width: ptr(2), Height: ptr(3)}, ContentType: "image/png", Size: 50}, Hash: "h1", UploaderID: chat.NewID(), UploadedAt: chat.Now()}
	must(t, s.InsertFile(c, f1))
	must(t, s.InsertFile(c, f2))
	wantErr(t, s.InsertFile(c, f1), store.ErrConflict)
	got, err := s.FetchFile(c, f2.ID)
	must(t, err)
	same(t, got, f2)
	n, err := s.CountFilesByHash(c, "h1")
	must(t, err)
	same(t, n, 2)
	got, err = s.FetchFileByHash(c, "h1")
	must(t, err)
	same(t, got.Hash, "h1")
	unused, err := s.FetchUnusedFiles(c, chat.TimeOf(time.Now().Add(-time.Hour)), 10)
	must(t, err)
	same(t, unused, []*chat.FileRecord{f1})
	f1.UsedFor = "message"
	f1.MessageID = ptr(chat.NewID())
	must(t, s.UpdateFile(c, f1))
	// Uploaded before a moment after f2's upload (a cutoff of now may
	// fall within f2's millisecond).
	later := chat.TimeOf(time.Now().Add(time.Second))
	unused, err = s.FetchUnusedFiles(c, later, 10)
	must(t, err)
	same(t, unused, []*chat.FileRecord{f2})
	f2.Deleted = ptr(true)
	must(t, s.UpdateFile(c, f2))
	unused, err = s.FetchUnusedFiles(c, later, 10)
	must(t, err)
	same(t, len(unused), 0)
	deleted, err := s.FetchDeletedFiles(c, 10)
	must(t, err)
	same(t, deleted, []*chat.FileRecord{f2})
	must(t, s.DeleteFile(c, f2.ID))
	wantErr(t, s.DeleteFile(c, f2.ID), store.ErrNotFound)
	n, err = s.CountFilesByHash(c, "h1")
	must(t, err)
	same(t, n, 1)
	deleted, err = s.FetchDeletedFiles(c, 10)
	must(t, err)
	same(t, len(deleted), 0)
	_, err = s.FetchFileByHash(c, "h2")
	wantErr(t, err, store.ErrNotFound)
}

func testWebhooks(t *testing.T, s store.Store) {
	c := ctx(t)
	channel := chat.NewID()
	w := &chat.Webhook{ID: chat.NewID(), Name: "hook", CreatorID: chat.NewID(), ChannelID: channel, Permissions: 876609536, Token: ptr(chat.NewToken(64))}
	must(t, s.InsertWebhook(c, w))
	wantErr(t, s.InsertWebhook(c, w), store.ErrConflict)
	got, err := s.FetchWebhook(c, w.ID)
	must(t, err)
	same(t, got, w)
	w.Name = "renamed"
	must(t, s.UpdateWebhook(c, w))
	list, err := s.FetchChannelWebhooks(c, channel)
	must(t, err)
	same(t, list, []*chat.Webhook{w})
	must(t, s.DeleteWebhook(c, w.ID))
	wantErr(t, s.DeleteWebhook(c, w.ID), store.ErrNotFound)

	// Deleting a channel deletes its webhooks, and only its own.
	owner := chat.NewID()
	doomed := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "doomed", Owner: owner, Recipients: []chat.ID{owner}}
	kept := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Name: "kept", Owner: owner, Recipients: []chat.ID{owner}}
	must(t, s.InsertChannel(c, doomed))
	must(t, s.InsertChannel(c, kept))
	gone := &chat.Webhook{ID: chat.NewID(), Name: "gone", CreatorID: owner, ChannelID: doomed.ID, Permissions: 1, Token: ptr(chat.NewToken(64))}
	stays := &chat.Webhook{ID: chat.NewID(), Name: "stays", CreatorID: owner, ChannelID: kept.ID, Permissions: 1, Token: ptr(chat.NewToken(64))}
	must(t, s.InsertWebhook(c, gone))
	must(t, s.InsertWebhook(c, stays))
	must(t, s.DeleteChannel(c, doomed.ID))
	_, err = s.FetchWebhook(c, gone.ID)
	wantErr(t, err, store.ErrNotFound)
	got, err = s.FetchWebhook(c, stays.ID)
	must(t, err)
	same(t, got, stays)
}

func testUnreads(t *testing.T, s store.Store) {
	c := ctx(t)
	user, ch1, ch2, ch3 := chat.NewID(), chat.NewID(), chat.NewID(), chat.NewID()
	m1, m2, m3 := chat.NewID(), chat.NewID(), chat.NewID()
	list, err := s.FetchUnreads(c, user)
	must(t, err)
	same(t, len(list), 0)
	must(t, s.AddMentions(c, ch1, m1, []chat.ID{user, chat.NewID()}))
	must(t, s.AddMentions(c, ch1, m3, []chat.ID{user}))
	must(t, s.AddMentions(c, ch1, m3, []chat.ID{user})) // idempotent
	must(t, s.AckChannel(c, user, ch2, m2))
	list, err = s.FetchUnreads(c, user)
	must(t, err)
	want := []*chat.ChannelUnread{
		{ID: chat.ChannelUnreadID{Channel: ch1, User: user}, Mentions: []chat.ID{m1, m3}},
		{ID: chat.ChannelUnreadID{Channel: ch2, User: user}, LastID: &m2},
	}
	slices.SortFunc(want, func(a, b *chat.ChannelUnread) int { return cmpID(a.ID.Channel, b.ID.Channel) })
	same(t, list, want)

	// Acking drops mentions at or before the acked message.
	must(t, s.AckChannel(c, user, ch1, m2))
	list, err = s.FetchUnreads(c, user)
	must(t, err)
	for _, u := range list {
		if u.ID.Channel == ch1 {
			same(t, u, &chat.ChannelUnread{ID: chat.ChannelUnreadID{Channel: ch1, User: user}, LastID: &m2, Mentions: []chat.ID{m3}})
		}
	}
	must(t, s.AckChannels(c, user, []chat.ID{ch1, ch2, ch3}, m3))
	list, err = s.FetchUnreads(c, user)
	must(t, err)
	same(t, len(list), 3)
	for _, u := range list {
		same(t, *u.LastID, m3)
		same(t, len(u.Mentions), 0)
	}
}

func testSettings(t *testing.T, s store.Store) {
	c := ctx(t)
	user := chat.NewID()
	must(t, s.SetSettings(c, user, map[string]chat.Setting{"ordering": {Timestamp: 1, Value: `{"a":1}`}, "theme": {Timestamp: 2, Value: "dark"}}))
	must(t, s.SetSettings(c, user, map[string]chat.Setting{"theme": {Timestamp: 3, Value: "light"}}))
	all, err := s.FetchSettings(c, user, nil)
	must(t, err)
	same(t, all, map[string]chat.Setting{"ordering": {Timestamp: 1, Value: `{"a":1}`}, "theme": {Timestamp: 3, Value: "light"}})
	some, err := s.FetchSettings(c, user, []string{"theme", "missing"})
	must(t, err)
	same(t, some, map[string]chat.Setting{"theme": {Timestamp: 3, Value: "light"}})
	none, err := s.FetchSettings(c, chat.NewID(), nil)
	must(t, err)
	same(t, len(none), 0)
}

func testSafety(t *testing.T, s store.Store) {
	c := ctx(t)
	author := chat.NewID()
	r1 := &chat.Report{ID: chat.NewID(), AuthorID: author, Content: chat.ReportedContent{Type: "User", ID: "x", Reason: "SpamAbuse"},
		Snapshot: map[string]any{"_type": "User", "_user": map[string]any{"username": "x"}}, Status: chat.ReportCreated, CreatedAt: chat.Now()}
	r2 := &chat.Report{ID: chat.NewID(), AuthorID: chat.NewID(), Content: chat.ReportedContent{Type: "Server", ID: "y", Reason: "Raid"}, Status: chat.ReportCreated, CreatedAt: chat.Now()}
	must(t, s.InsertReport(c, r1))
	must(t, s.InsertReport(c, r2))
	list, err := s.FetchReports(c, store.ReportQuery{Limit: 10})
	must(t, err)
	same(t, []chat.ID{list[0].ID, list[1].ID}, []chat.ID{r2.ID, r1.ID})
	got, err := s.FetchReport(c, r1.ID)
	must(t, err)
	same(t, got, r1)
	_, err = s.FetchReport(c, chat.NewID())
	wantErr(t, err, store.ErrNotFound)

	// One open report per author per item; a closed one allows another.
	dup := &chat.Report{ID: chat.NewID(), AuthorID: author, Content: r1.Content, Status: chat.ReportCreated, CreatedAt: chat.Now()}
	wantErr(t, s.InsertReport(c, dup), store.ErrConflict)
	now := chat.Now()
	r1.Status, r1.ClosedAt, r1.ClosedBy, r1.Note = chat.ReportResolved, &now, &author, "handled"
	must(t, s.UpdateReport(c, r1))
	must(t, s.InsertReport(c, dup))
	r1.Status = chat.ReportCreated
	wantErr(t, s.UpdateReport(c, r1), store.ErrConflict)
	wantErr(t, s.UpdateReport(c, &chat.Report{ID: chat.NewID(), Status: chat.ReportResolved}), store.ErrNotFound)

	open, err := s.FetchReports(c, store.ReportQuery{Status: chat.ReportCreated, Limit: 10})
	must(t, err)
	same(t, []chat.ID{open[0].ID, open[1].ID}, []chat.ID{dup.ID, r2.ID})
	mine, err := s.FetchReports(c, store.ReportQuery{Author: author, Limit: 10})
	must(t, err)
	same(t, []chat.ID{mine[0].ID, mine[1].ID}, []chat.ID{dup.ID, r1.ID})
	against, err := s.FetchReports(c, store.ReportQuery{Content: "y", Limit: 10})
	must(t, err)
	same(t, len(against), 1)
	same(t, against[0].ID, r2.ID)
	older, err := s.FetchReports(c, store.ReportQuery{Before: dup.ID, Limit: 1})
	must(t, err)
	same(t, []chat.ID{older[0].ID}, []chat.ID{r2.ID})
	counts, err := s.CountObjects(c)
	must(t, err)
	same(t, counts.Reports, 2)

	p1 := &chat.PolicyChange{CreatedTime: chat.TimeFromMillis(1000), EffectiveTime: chat.TimeFromMillis(2000), Description: "one", URL: "https://a"}
	p2 := &chat.PolicyChange{CreatedTime: chat.TimeFromMillis(3000), EffectiveTime: chat.TimeFromMillis(4000), Description: "two", URL: "https://b"}
	must(t, s.InsertPolicyChange(c, p2))
	must(t, s.InsertPolicyChange(c, p1))
	changes, err := s.FetchPolicyChanges(c, chat.TimeFromMillis(0))
	must(t, err)
	same(t, changes, []chat.PolicyChange{*p1, *p2})
	changes, err = s.FetchPolicyChanges(c, chat.TimeFromMillis(1000))
	must(t, err)
	same(t, changes, []chat.PolicyChange{*p2})
}

func testTransactions(t *testing.T, s store.Store) {
	c := ctx(t)
	u := newUser("tx", "0002")
	boom := errors.New("boom")
	err := s.InTx(c, func(tx store.Store) error {
		must(t, tx.InsertUser(c, u))
		if _, err := tx.FetchUser(c, u.ID); err != nil {
			return err // a transaction reads its own writes
		}
		return boom
	})
	wantErr(t, err, boom)
	_, err = s.FetchUser(c, u.ID)
	wantErr(t, err, store.ErrNotFound)

	must(t, s.InTx(c, func(tx store.Store) error {
		if err := tx.InsertUser(c, u); err != nil {
			return err
		}
		// Nested calls join the outer transaction.
		return tx.InTx(c, func(inner store.Store) error {
			return inner.InsertServer(c, newServer(u.ID))
		})
	}))
	_, err = s.FetchUser(c, u.ID)
	must(t, err)

	// A failed statement inside the transaction rolls back the earlier ones.
	v := newUser("tx2", "0003")
	err = s.InTx(c, func(tx store.Store) error {
		if err := tx.InsertUser(c, v); err != nil {
			return err
		}
		return tx.InsertUser(c, u) // duplicate id
	})
	wantErr(t, err, store.ErrConflict)
	_, err = s.FetchUser(c, v.ID)
	wantErr(t, err, store.ErrNotFound)
}

// testLockOrder runs a channel's last message record (SetLastMessage,
// the write-behind's) and its update (UpdateChannel) alone while a
// transaction holds the channel's server and then reads the channel, as
// editing a channel does: each locks the server before the channel too,
// so none deadlocks (PostgreSQL answered one of them with an error).
func testLockOrder(t *testing.T, s store.Store) {
	c := ctx(t)
	sv := newServer(chat.NewID())
	must(t, s.InsertServer(c, sv))
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: sv.ID, Name: "general"}
	must(t, s.InsertChannel(c, ch))
	for _, write := range []struct {
		name string
		do   func() error
	}{
		{"SetLastMessage", func() error { return s.SetLastMessage(c, ch.ID, chat.NewID()) }},
		{"UpdateChannel", func() error {
			u := *ch
			u.Name = "renamed"
			return s.UpdateChannel(c, &u)
		}},
	} {
		t.Run(write.name, func(t *testing.T) {
			done := make(chan error, 1)
			err := s.InTx(c, func(tx store.Store) error {
				if _, err := tx.FetchServer(c, sv.ID); err != nil {
					return err
				}
				go func() { done <- write.do() }()
				time.Sleep(200 * time.Millisecond) // the write takes what it can meanwhile
				_, err := tx.FetchChannel(c, ch.ID)
				return err
			})
			if err != nil {
				t.Fatalf("the transaction: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("%s: %v", write.name, err)
			}
		})
	}
}

// testConcurrentWrites checks load-change-save in InTx loses no update.
func testConcurrentWrites(t *testing.T, s store.Store) {
	c := ctx(t)
	m := &chat.Message{ID: chat.NewID(), Channel: chat.NewID(), Author: chat.NewID(), Content: ptr("react to me")}
	must(t, s.InsertMessage(c, m))
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.InTx(c, func(tx store.Store) error {
				msg, err := tx.FetchMessage(c, m.ID)
				if err != nil {
					return err
				}
				if msg.Reactions == nil {
					msg.Reactions = map[string][]chat.ID{}
				}
				msg.Reactions["👍"] = append(msg.Reactions["👍"], chat.ID(fmt.Sprint(i)))
				return tx.UpdateMessage(c, msg)
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	got, err := s.FetchMessage(c, m.ID)
	must(t, err)
	same(t, len(got.Reactions["👍"]), workers)
}

func testPlatform(t *testing.T, s store.Store) {
	c := ctx(t)
	a, b, d := newUser("Weasel_1", "0001"), newUser("stoat", "0002"), newUser("Weasel%", "0003")
	for _, u := range []*chat.User{a, b, d} {
		must(t, s.InsertUser(c, u))
	}
	ids := func(us []*chat.User) []chat.ID {
		out := []chat.ID{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	all, err := s.SearchUsers(c, store.UserSearch{Limit: 10})
	must(t, err)
	same(t, ids(all), []chat.ID{a.ID, b.ID, d.ID})
	found, err := s.SearchUsers(c, store.UserSearch{Query: "weasel", Limit: 10})
	must(t, err)
	same(t, ids(found), []chat.ID{a.ID, d.ID})
	found, err = s.SearchUsers(c, store.UserSearch{Query: "l%", Limit: 10})
	must(t, err)
	same(t, ids(found), []chat.ID{d.ID})
	found, err = s.SearchUsers(c, store.UserSearch{Query: "l_", Limit: 10})
	must(t, err)
	same(t, ids(found), []chat.ID{a.ID})
	found, err = s.SearchUsers(c, store.UserSearch{Query: string(b.ID), Limit: 10})
	must(t, err)
	same(t, ids(found), []chat.ID{b.ID})
	found, err = s.SearchUsers(c, store.UserSearch{After: a.ID, Limit: 1})
	must(t, err)
	same(t, ids(found), []chat.ID{b.ID})
	// An account's address finds its user.
	must(t, s.InsertAccount(c, &chat.Account{ID: b.ID, Email: "The.Stoat@Example.com", EmailNormalised: "thestoat@example.com"}))
	found, err = s.SearchUsers(c, store.UserSearch{Query: "e.stoat@EXAMPLE", Limit: 10})
	must(t, err)
	same(t, ids(found), []chat.ID{b.ID})

	// Servers by id or name.
	s1, s2 := newServer(a.ID), newServer(b.ID)
	s1.Name, s2.Name = "Weasel Den", "Burrow_50%"
	must(t, s.InsertServer(c, s1))
	must(t, s.InsertServer(c, s2))
	svIDs := func(ss []*chat.Server) []chat.ID {
		out := []chat.ID{}
		for _, sv := range ss {
			out = append(out, sv.ID)
		}
		return out
	}
	servers, err := s.SearchServers(c, store.UserSearch{Query: "den", Limit: 10})
	must(t, err)
	same(t, svIDs(servers), []chat.ID{s1.ID})
	servers, err = s.SearchServers(c, store.UserSearch{Query: "0%", Limit: 10})
	must(t, err)
	same(t, svIDs(servers), []chat.ID{s2.ID})
	servers, err = s.SearchServers(c, store.UserSearch{Query: string(s2.ID), Limit: 10})
	must(t, err)
	same(t, svIDs(servers), []chat.ID{s2.ID})
	servers, err = s.SearchServers(c, store.UserSearch{After: s1.ID, Limit: 10})
	must(t, err)
	same(t, svIDs(servers), []chat.ID{s2.ID})

	// The instance's audit log, newest first.
	e1 := &chat.AdminAction{ID: chat.NewID(), User: a.ID, Action: "DisableUser", Target: string(b.ID)}
	e2 := &chat.AdminAction{ID: chat.NewID(), Action: "WipeUser", Target: string(d.ID), Detail: map[string]any{"mode": "ban"}}
	must(t, s.InsertAdminAction(c, e1))
	must(t, s.InsertAdminAction(c, e2))
	wantErr(t, s.InsertAdminAction(c, e1), store.ErrConflict)
	log, err := s.FetchAdminActions(c, store.AdminActionQuery{Limit: 10})
	must(t, err)
	same(t, log, []*chat.AdminAction{e2, e1})
	log, err = s.FetchAdminActions(c, store.AdminActionQuery{Target: string(b.ID), Limit: 10})
	must(t, err)
	same(t, log, []*chat.AdminAction{e1})
	log, err = s.FetchAdminActions(c, store.AdminActionQuery{Before: e2.ID, Limit: 10})
	must(t, err)
	same(t, log, []*chat.AdminAction{e1})

	channel := chat.NewID()
	var mine []chat.ID
	for i := range 5 {
		author := a.ID
		if i == 2 {
			author = b.ID
		}
		m := &chat.Message{ID: chat.NewID(), Channel: channel, Author: author, Content: ptr(fmt.Sprint("m", i))}
		must(t, s.InsertMessage(c, m))
		if author == a.ID {
			mine = append(mine, m.ID)
		}
	}
	msgs, err := s.FetchMessagesByAuthor(c, a.ID, "", 3)
	must(t, err)
	got := []chat.ID{}
	for _, m := range msgs {
		got = append(got, m.ID)
	}
	same(t, got, mine[:3])
	msgs, err = s.FetchMessagesByAuthor(c, a.ID, mine[2], 10)
	must(t, err)
	same(t, len(msgs), 1)

	var uploads []string
	for i := range 3 {
		uploader := a.ID
		if i == 1 {
			uploader = b.ID
		}
		f := &chat.FileRecord{File: chat.File{ID: fmt.Sprint("file", i), Tag: "attachments", Filename: "f", ContentType: "text/plain"},
			Hash: fmt.Sprint("hash", i), UploaderID: uploader, UploadedAt: chat.Now()}
		must(t, s.InsertFile(c, f))
		if uploader == a.ID {
			uploads = append(uploads, f.ID)
		}
	}
	files, err := s.FetchFilesByUploader(c, a.ID, "", 10)
	must(t, err)
	got = []chat.ID{}
	for _, f := range files {
		got = append(got, chat.ID(f.ID))
	}
	same(t, got, []chat.ID{chat.ID(uploads[0]), chat.ID(uploads[1])})
	files, err = s.FetchFilesByUploader(c, a.ID, uploads[0], 10)
	must(t, err)
	same(t, len(files), 1)

	counts, err := s.CountObjects(c)
	must(t, err)
	same(t, counts, store.Counts{Accounts: 1, Users: 3, Servers: 2, Messages: 5})

	past := time.Now().Add(-time.Minute)
	none, err := s.TakeRelayEvents(c, 10, past)
	must(t, err)
	same(t, len(none), 0)
	must(t, s.InsertRelayEvent(c, "one", []byte("first")))
	must(t, s.InsertRelayEvent(c, "two", []byte{0, 1, 2}))
	must(t, s.InsertRelayEvent(c, "three", []byte("third")))
	evs, err := s.TakeRelayEvents(c, 2, past)
	must(t, err)
	same(t, evs, []store.RelayEvent{{Topic: "one", Frame: []byte("first")}, {Topic: "two", Frame: []byte{0, 1, 2}}})
	evs, err = s.TakeRelayEvents(c, 10, past)
	must(t, err)
	same(t, evs, []store.RelayEvent{{Topic: "three", Frame: []byte("third")}})

	// Frames kept before the cut-off have expired: removed, never returned.
	must(t, s.InsertRelayEvent(c, "late", []byte("stale")))
	evs, err = s.TakeRelayEvents(c, 10, time.Now().Add(time.Minute))
	must(t, err)
	same(t, len(evs), 0)
	evs, err = s.TakeRelayEvents(c, 10, past)
	must(t, err)
	same(t, len(evs), 0)
}
