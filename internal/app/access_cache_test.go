package app

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/pubsub"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/store"
	"ermine/internal/store/sqlite"
)

// accessUnrelated are the store's writes that cannot change a row the
// access cache keeps (a session with its user, a channel, a server, a
// membership), by why.
var accessUnrelated = map[string][]string{
	"accounts are not kept": {"InsertAccount", "UpdateAccount"},
	"MFA tickets":           {"InsertTicket", "UpdateTicket", "DeleteTicket"},
	"registration invites":  {"InsertRegistrationInvite", "UpdateRegistrationInvite", "DeleteRegistrationInvite"},
	"only rows read are kept, none before it exists": {"InsertSession", "InsertUser", "InsertServer", "InsertChannel"},
	"last_seen only, which no send reads":            {"TouchSessions"},
	"the channel's last message id, never kept":      {"SetLastMessage"},
	"relationships are read apart, not kept":         {"SetRelationship"},
	"bot tokens are not kept":                        {"InsertBot", "UpdateBot"},
	"departed members' timeouts, another table":      {"KeepTimeout", "TakeTimeout"},
	"bans go with DeleteMember":                      {"InsertBan", "DeleteBan"},
	"messages": {"InsertMessage", "InsertMessages", "UpdateMessage", "DeleteMessage", "DeleteMessages",
		"DeleteEphemeralMessages"},
	"emojis are read apart":              {"InsertEmoji", "UpdateEmoji", "DetachEmojis", "DeleteEmoji"},
	"invites":                            {"InsertInvite", "DeleteInvite"},
	"files":                              {"InsertFile", "UpdateFile", "DeleteFile"},
	"webhooks":                           {"InsertWebhook", "UpdateWebhook", "DeleteWebhook"},
	"unreads":                            {"AckChannel", "AckChannels", "AddMentions"},
	"user settings":                      {"SetSettings"},
	"reports and policy":                 {"InsertReport", "UpdateReport", "InsertPolicyChange"},
	"the admin command's events and log": {"InsertRelayEvent", "TakeRelayEvents", "InsertAdminAction"},
	"voice state":                        {"SetVoiceParticipant", "DeleteVoiceParticipant", "SetVoiceCall", "DeleteVoiceCall"},
	"audit log":                          {"InsertAuditLogEntry"},
	"import records":                     {"SetImport", "DeleteImport"},
	"the store's own end":                {"Close"},
}

// accessReadPrefixes name the store's reads, which change nothing.
var accessReadPrefixes = []string{"Fetch", "Count", "Search", "Filter", "Ping"}

// TestAccessStoreCoversEveryWrite sorts every method of the store
// contract: accessStore overrides it (a write that can change a kept
// row, or the cached read, or InTx), or it is a read, or it is a write
// listed in accessUnrelated. A method added to the contract fails here
// until someone decides which it is.
func TestAccessStoreCoversEveryWrite(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "access_cache.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	overridden := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
			continue
		}
		if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "accessStore" && fn.Name.IsExported() {
				overridden[fn.Name.Name] = true
			}
		}
	}
	unrelatedWhy := map[string]string{}
	for why, methods := range accessUnrelated {
		for _, m := range methods {
			if _, twice := unrelatedWhy[m]; twice {
				t.Errorf("accessUnrelated lists %s twice", m)
			}
			unrelatedWhy[m] = why
		}
	}
	contract := reflect.TypeFor[store.Store]()
	names := map[string]bool{}
	for m := range contract.Methods() {
		name := m.Name
		names[name] = true
		read := slices.ContainsFunc(accessReadPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
		_, unrelated := unrelatedWhy[name]
		switch {
		case overridden[name] && unrelated:
			t.Errorf("%s is overridden by accessStore and listed as unrelated", name)
		case overridden[name]:
		case read && unrelated:
			t.Errorf("%s is a read: it needs no place in accessUnrelated", name)
		case read, unrelated:
		default:
			t.Errorf("store method %s is neither overridden by accessStore nor a read nor in accessUnrelated: "+
				"decide whether it can change a session, user, channel, server or membership the access cache keeps", name)
		}
	}
	for name := range overridden {
		if !names[name] {
			t.Errorf("accessStore.%s is not a method of the store contract", name)
		}
	}
	for name := range unrelatedWhy {
		if !names[name] {
			t.Errorf("accessUnrelated names %s, which the store contract has not", name)
		}
	}
}

// storeToken gives c's session a token and stores it.
func (ta *testApp) storeToken(t *testing.T, c *Caller) string {
	t.Helper()
	c.Session.Token = chat.NewToken(64)
	if err := ta.st.InsertSession(context.Background(), c.Session); err != nil {
		t.Fatal(err)
	}
	return c.Session.Token
}

// sendWith sends content to channel as a request with token does:
// authenticated with the channel, then sent.
func (ta *testApp) sendWith(ctx context.Context, token string, channel chat.ID, content string) (*chat.Message, error) {
	c, err := ta.AuthenticateForChannel(ctx, token, "", channel)
	if err != nil {
		return nil, err
	}
	return ta.SendMessage(ctx, c, channel, chat.MessageSend{Content: &content}, "")
}

// accessWorld is a server with an owner and a member, both with tokens,
// on an app whose store counts the session-and-channel reads reaching
// it.
type accessWorld struct {
	*testApp
	counts                  *countingStore
	owner, member           *Caller
	ownerToken, memberToken string
	server                  *chat.Server
	general                 chat.ID
	inviteCode              string
}

func newAccessWorld(t *testing.T, now func() time.Time) *accessWorld {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "ermine.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bus := newTestBus(t)
	cs := &countingStore{Store: st}
	a := New(Deps{Store: cs, Bus: bus, Now: now, Settings: Settings{Limits: DefaultLimits()}})
	t.Cleanup(func() { a.Close() })
	w := &accessWorld{testApp: &testApp{App: a, st: st, bus: bus}, counts: cs}
	w.owner, w.member = w.user(t, "owner"), w.user(t, "member")
	created, err := w.CreateServer(ctx, w.owner, chat.ServerCreate{Name: "Kept"})
	if err != nil {
		t.Fatal(err)
	}
	w.server, w.general = created.Server, created.Channels[0].ID
	invite, err := w.CreateInvite(ctx, w.owner, w.general)
	if err != nil {
		t.Fatal(err)
	}
	w.inviteCode = invite.Code
	if _, err := w.JoinInvite(ctx, w.member, invite.Code); err != nil {
		t.Fatal(err)
	}
	w.ownerToken, w.memberToken = w.storeToken(t, w.owner), w.storeToken(t, w.member)
	return w
}

// reads returns the session-and-channel reads that reached the store
// since the last call.
func (w *accessWorld) reads() int64 { return w.counts.sessionChannel.Swap(0) }

// TestAccessCacheFollowsChanges: a send is answered from the cache once
// its rows were read, and every kind of change made through the app
// (the user, the channel's and the server's permissions, the member's
// roles, a kick, the channel's deletion, a logout) is seen by the very
// next send.
func TestAccessCacheFollowsChanges(t *testing.T) {
	ctx := context.Background()
	w := newAccessWorld(t, nil)
	send := func(token string, channel chat.ID) (*chat.Message, error) {
		return w.sendWith(ctx, token, channel, "hello")
	}
	mustSend := func(what string, token string, channel chat.ID, reads int64) *chat.Message {
		t.Helper()
		m, err := send(token, channel)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := w.reads(); got != reads {
			t.Fatalf("%s: %d reads of the session and channel, want %d", what, got, reads)
		}
		return m
	}
	mustFail := func(what string, token string, channel chat.ID, want error) {
		t.Helper()
		_, err := send(token, channel)
		if !errors.Is(err, want) && (err == nil || !strings.Contains(err.Error(), want.Error())) {
			t.Fatalf("%s: %v, want %v", what, err, want)
		}
		w.reads()
	}

	mustSend("first send", w.memberToken, w.general, 1)
	mustSend("second send", w.memberToken, w.general, 0)
	w.sends.lastMessages.Flush() // the channel's last message id, written behind
	mustSend("a send after the last message id was written", w.memberToken, w.general, 0)
	r, err := w.store.FetchSessionChannelAccess(ctx, w.memberToken, w.general)
	if err != nil || r.Channel.LastMessageID != nil {
		t.Fatalf("the kept channel carries a last message id: %+v, %v", r.Channel, err)
	}
	w.reads()

	name := "New Name"
	if _, err := w.EditUser(ctx, w.member, "@me", chat.UserEdit{DisplayName: &name}); err != nil {
		t.Fatal(err)
	}
	if m := mustSend("after a rename", w.memberToken, w.general, 1); m.User == nil || m.User.DisplayName == nil || *m.User.DisplayName != name {
		t.Fatalf("after a rename the message's author is %+v", m.User)
	}

	deny := chat.OverrideData{Deny: int64(perm.SendMessage)}
	if _, err := w.SetChannelDefaultPermissions(ctx, w.owner, w.general, chat.DefaultPermissionsSet{Override: &deny}); err != nil {
		t.Fatal(err)
	}
	mustFail("after the channel denies sending", w.memberToken, w.general, chat.ErrMissingPermission("SendMessage"))
	if _, err := w.SetChannelDefaultPermissions(ctx, w.owner, w.general, chat.DefaultPermissionsSet{Override: &chat.OverrideData{}}); err != nil {
		t.Fatal(err)
	}
	mustSend("after the channel allows it again", w.memberToken, w.general, 1)

	if _, err := w.SetDefaultServerPermissions(ctx, w.owner, w.server.ID, uint64(w.server.DefaultPermissions)&^uint64(perm.SendMessage)); err != nil {
		t.Fatal(err)
	}
	mustFail("after the server denies sending", w.memberToken, w.general, chat.ErrMissingPermission("SendMessage"))

	role, err := w.CreateRole(ctx, w.owner, w.server.ID, chat.RoleCreate{Name: "talkers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.SetServerRolePermissions(ctx, w.owner, w.server.ID, role.ID, chat.OverrideData{Allow: int64(perm.SendMessage)}); err != nil {
		t.Fatal(err)
	}
	mustFail("with a role the member has not", w.memberToken, w.general, chat.ErrMissingPermission("SendMessage"))
	roles := []chat.ID{role.ID}
	if _, err := w.EditMember(ctx, w.owner, w.server.ID, w.member.ID(), chat.MemberEdit{Roles: &roles}); err != nil {
		t.Fatal(err)
	}
	mustSend("after the member is given the role", w.memberToken, w.general, 1)

	if err := w.KickMember(ctx, w.owner, w.server.ID, w.member.ID()); err != nil {
		t.Fatal(err)
	}
	mustFail("after a kick", w.memberToken, w.general, chat.ErrNotFound)

	mustSend("the owner's send", w.ownerToken, w.general, 1)
	if err := w.DeleteChannel(ctx, w.owner, w.general, false); err != nil {
		t.Fatal(err)
	}
	mustFail("after the channel's deletion", w.ownerToken, w.general, chat.ErrNotFound)

	other, err := w.CreateServerChannel(ctx, w.owner, w.server.ID, chat.ServerChannelCreate{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	mustSend("a send to a new channel", w.ownerToken, other.ID, 1)
	mustSend("again", w.ownerToken, other.ID, 0)
	if err := w.Logout(ctx, w.owner); err != nil {
		t.Fatal(err)
	}
	mustFail("after a logout", w.ownerToken, other.ID, chat.ErrInvalidSession)
}

// TestAccessCacheTwoNodes: changes made on another node sharing the
// store and the bus reach this node's cache through the bus. Node one's
// cache is watched directly: a send would refill it.
func TestAccessCacheTwoNodes(t *testing.T) {
	ctx := context.Background()
	w := newAccessWorld(t, nil)
	two := New(Deps{Store: w.st, Bus: w.bus, Settings: Settings{Limits: DefaultLimits()}})
	t.Cleanup(func() { two.Close() })
	one := w.store.(*accessStore)
	for range 2 {
		if _, err := w.sendWith(ctx, w.memberToken, w.general, "hi"); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.reads(); got != 1 {
		t.Fatalf("%d reads for two sends, want 1", got)
	}
	// read reads the rows again on node one (not a send: nothing is
	// written behind) until they are kept: a frame of node two's that
	// arrives while a read runs rightly keeps it from being kept.
	read := func() *store.SessionChannel {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; {
			r, err := one.FetchSessionChannelAccess(ctx, w.memberToken, w.general)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := one.cache.lookup(w.memberToken, w.general); ok || r.Member == nil {
				return r
			}
			if time.Now().After(deadline) {
				t.Fatal("node one did not keep what it read")
			}
			time.Sleep(time.Millisecond)
		}
	}
	dropped := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, ok := one.cache.lookup(w.memberToken, w.general); !ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never reached node one's cache", what)
			}
			time.Sleep(time.Millisecond)
		}
	}
	read()

	name := "Renamed Elsewhere"
	if _, err := two.EditUser(ctx, w.member, "@me", chat.UserEdit{DisplayName: &name}); err != nil {
		t.Fatal(err)
	}
	dropped("a rename on node two")
	if r := read(); r.User.DisplayName == nil || *r.User.DisplayName != name {
		t.Fatalf("node one reads the user %+v after the rename", r.User)
	}

	deny := chat.OverrideData{Deny: int64(perm.SendMessage)}
	if _, err := two.SetChannelDefaultPermissions(ctx, w.owner, w.general, chat.DefaultPermissionsSet{Override: &deny}); err != nil {
		t.Fatal(err)
	}
	dropped("a permission denied on node two")
	if r := read(); r.Channel.DefaultPermissions == nil || r.Channel.DefaultPermissions.D != deny.Deny {
		t.Fatalf("node one reads the channel's default permissions %+v", r.Channel.DefaultPermissions)
	}

	if _, err := two.SetDefaultServerPermissions(ctx, w.owner, w.server.ID, uint64(w.server.DefaultPermissions)&^uint64(perm.SendMessage)); err != nil {
		t.Fatal(err)
	}
	dropped("the server's permissions changed on node two")
	read()

	if err := two.KickMember(ctx, w.owner, w.server.ID, w.member.ID()); err != nil {
		t.Fatal(err)
	}
	dropped("a kick on node two")
	if r := read(); r.Member != nil {
		t.Fatal("node one reads a membership after the kick")
	}
	if _, err := two.JoinInvite(ctx, w.member, w.inviteCode); err != nil {
		t.Fatal(err)
	}
	read()

	if err := two.Logout(ctx, w.member); err != nil {
		t.Fatal(err)
	}
	dropped("a logout on node two")
	if _, err := w.sendWith(ctx, w.memberToken, w.general, "hi"); !errors.Is(err, chat.ErrInvalidSession) {
		t.Fatalf("a send on node one after a logout on node two: %v, want InvalidSession", err)
	}
}

// TestAccessCacheAge: a change the cache never hears of (written past
// the app, as a lost bus frame would leave it) is seen once accessAge
// has passed.
func TestAccessCacheAge(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	w := newAccessWorld(t, clock)
	if _, err := w.sendWith(ctx, w.memberToken, w.general, "hi"); err != nil {
		t.Fatal(err)
	}
	if err := w.st.DeleteSession(ctx, w.member.Session.ID); err != nil { // past the app
		t.Fatal(err)
	}
	if _, err := w.sendWith(ctx, w.memberToken, w.general, "hi"); err != nil {
		t.Fatalf("within accessAge the kept session still serves: %v", err)
	}
	mu.Lock()
	now = now.Add(accessAge)
	mu.Unlock()
	if _, err := w.sendWith(ctx, w.memberToken, w.general, "hi"); !errors.Is(err, chat.ErrInvalidSession) {
		t.Fatalf("after accessAge: %v, want InvalidSession", err)
	}
}

// blockingStore holds FetchSessionChannelAccess until released.
type blockingStore struct {
	store.Store
	entered, release chan struct{}
}

func (s *blockingStore) FetchSessionChannelAccess(ctx context.Context, token string, channel chat.ID) (*store.SessionChannel, error) {
	if s.entered != nil {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.Store.FetchSessionChannelAccess(ctx, token, channel)
}

// TestAccessCacheKeepsNoReadFromBeforeAChange: a read under way while a
// row is dropped may have read the row from before its change, so it is
// not kept; and the changes of a transaction are dropped when it ends,
// not before, when a read could still see the old rows.
func TestAccessCacheKeepsNoReadFromBeforeAChange(t *testing.T) {
	ctx := context.Background()
	w := newAccessWorld(t, nil)
	bs := &blockingStore{Store: w.st, entered: make(chan struct{}), release: make(chan struct{})}
	c := newAccessCache(nil, time.Now, func(context.Context, string, ...any) {})
	s := &accessStore{Store: bs, cache: c}

	done := make(chan error)
	go func() {
		_, err := s.FetchSessionChannelAccess(ctx, w.memberToken, w.general)
		done <- err
	}()
	<-bs.entered
	c.changed(ctx, []accessChange{{Kind: changeMember, ID: w.server.ID, User: w.member.ID()}})
	close(bs.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok := c.lookup(w.memberToken, w.general); ok {
		t.Fatal("a read begun before a change was kept")
	}

	bs.entered = nil
	if _, err := s.FetchSessionChannelAccess(ctx, w.memberToken, w.general); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.lookup(w.memberToken, w.general); !ok {
		t.Fatal("a read with no change under way was not kept")
	}
	err := s.InTx(ctx, func(tx store.Store) error {
		m, err := tx.FetchMember(ctx, w.server.ID, w.member.ID())
		if err != nil {
			return err
		}
		nick := "inside"
		m.Nickname = &nick
		if err := tx.UpdateMember(ctx, m); err != nil {
			return err
		}
		if _, ok := c.lookup(w.memberToken, w.general); !ok {
			t.Error("a change was dropped before its transaction ended")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.lookup(w.memberToken, w.general); ok {
		t.Fatal("a change in a transaction was not dropped when it ended")
	}
}

// TestAccessCacheHandsOutCopies: what a send is given may be changed
// without changing what the next send is given.
func TestAccessCacheHandsOutCopies(t *testing.T) {
	ctx := context.Background()
	w := newAccessWorld(t, nil)
	s := w.store.(*accessStore)
	first, err := s.FetchSessionChannelAccess(ctx, w.memberToken, w.general)
	if err != nil {
		t.Fatal(err)
	}
	first.User.Username, first.Channel.Name, first.Server.Name, first.Session.Name = "x", "x", "x", "x"
	nick := "x"
	first.Member.Nickname = &nick
	second, err := s.FetchSessionChannelAccess(ctx, w.memberToken, w.general)
	if err != nil {
		t.Fatal(err)
	}
	if w.reads() != 1 {
		t.Fatal("the second read was not answered by the cache")
	}
	if second.User.Username == "x" || second.Channel.Name == "x" || second.Server.Name == "x" ||
		second.Session.Name == "x" || second.Member.Nickname != nil {
		t.Fatalf("a change to what the cache handed out reached it: %+v", second)
	}
}

// refusingBus cannot be subscribed to.
type refusingBus struct{ pubsub.Bus }

func (refusingBus) Subscribe(pubsub.Handler) (pubsub.Subscription, error) {
	return nil, errors.New("bus down")
}

// TestAccessCacheOffWithoutTheBus: a node that cannot hear the others'
// changes keeps nothing.
func TestAccessCacheOffWithoutTheBus(t *testing.T) {
	ctx := context.Background()
	w := newAccessWorld(t, nil)
	a := New(Deps{Store: w.counts, Bus: refusingBus{w.bus}, Settings: Settings{Limits: DefaultLimits()}})
	t.Cleanup(func() { a.Close() })
	other := &testApp{App: a, st: w.st, bus: w.bus}
	for range 3 {
		if _, err := other.sendWith(ctx, w.memberToken, w.general, "hi"); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.reads(); got != 3 {
		t.Fatalf("%d reads for three sends, want 3 (nothing kept)", got)
	}
}

func TestAccessChangesFrame(t *testing.T) {
	from := chat.NewID()
	changes := []accessChange{
		{Kind: changeSession, ID: chat.NewID()}, {Kind: changeUser, ID: chat.NewID()},
		{Kind: changeChannel, ID: chat.NewID()}, {Kind: changeServer, ID: chat.NewID()},
		{Kind: changeMember, ID: chat.NewID(), User: chat.NewID()},
	}
	if gotFrom, got := decodeChanges(encodeChanges(from, changes)); gotFrom != from || !slices.Equal(got, changes) {
		t.Fatalf("round trip: %s %+v, want %s %+v", gotFrom, got, from, changes)
	}
	everything := []accessChange{{Kind: changeEverything}}
	for _, bad := range []string{"", "n", "n\n", "n\ns", "n\nx01", "n\nm01", "n\nm01 ", "n\nm 01",
		"n\ns01\n", "n\n\ns01", "n\ns01\nq", "\ns01"} {
		if gotFrom, got := decodeChanges([]byte(bad)); gotFrom != "" || !slices.Equal(got, everything) {
			t.Errorf("decodeChanges(%q) = %s %+v, want a change of everything from nobody", bad, gotFrom, got)
		}
	}
}

// FuzzDecodeChanges: any frame is read as changes that encode back to
// it, or as a change of everything; never a panic.
func FuzzDecodeChanges(f *testing.F) {
	f.Add([]byte("01N\ns01ABC\nm01A 01B"))
	f.Add([]byte("*"))
	f.Add([]byte("n\nu\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		from, got := decodeChanges(msg)
		if len(got) == 0 {
			t.Fatal("no changes")
		}
		if len(got) == 1 && got[0].Kind == changeEverything {
			return
		}
		if string(encodeChanges(from, got)) != string(msg) {
			t.Fatalf("decodeChanges(%q) = %s %+v, which encodes as %q", msg, from, got, encodeChanges(from, got))
		}
	})
}

// newTestBus is an in-process bus closed with the test.
func newTestBus(t *testing.T) *inproc.Bus {
	t.Helper()
	bus := inproc.New(0)
	t.Cleanup(func() { bus.Close() })
	return bus
}
