package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// msgFixture builds servers, channels, files and bots directly in the
// node's store for the message tests, which would otherwise depend on the
// routes that create them. Every test uses fresh channels so that the
// per-channel rate limits (10 sends, 15 other calls per 10 s) never bite.
type msgFixture struct {
	t *testing.T
	h *apitest.Harness
}

func newMsgFixture(t *testing.T) *msgFixture {
	t.Helper()
	return &msgFixture{t: t, h: apitest.Start(t)}
}

func (f *msgFixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// server creates a server owned by owner with the default permissions of
// a new server, the owner's membership and one text channel.
func (f *msgFixture) server(owner *apitest.User) (*chat.Server, *chat.Channel) {
	f.t.Helper()
	ctx := context.Background()
	s := &chat.Server{ID: chat.NewID(), Owner: owner.ID, Name: "test server", Channels: []chat.ID{},
		DefaultPermissions: int64(perm.DefaultServer), Roles: map[chat.ID]chat.Role{}}
	f.must(f.h.Server.Store.InsertServer(ctx, s))
	f.join(s, owner)
	return s, f.channel(s)
}

// channel adds a text channel to s.
func (f *msgFixture) channel(s *chat.Server) *chat.Channel {
	f.t.Helper()
	ctx := context.Background()
	ch := &chat.Channel{ChannelType: chat.ChannelText, ID: chat.NewID(), Server: s.ID, Name: "general"}
	f.must(f.h.Server.Store.InsertChannel(ctx, ch))
	s.Channels = append(s.Channels, ch.ID)
	f.must(f.h.Server.Store.UpdateServer(ctx, s))
	return ch
}

// join makes u a member of s with roles.
func (f *msgFixture) join(s *chat.Server, u *apitest.User, roles ...chat.ID) {
	f.t.Helper()
	f.must(f.h.Server.Store.InsertMember(context.Background(), &chat.Member{
		ID: chat.MemberID{Server: s.ID, User: u.ID}, JoinedAt: chat.Now(), Roles: roles}))
}

// role adds a role with the given allowed permissions at rank.
func (f *msgFixture) role(s *chat.Server, allow perm.Set, rank int64) chat.ID {
	f.t.Helper()
	id := chat.NewID()
	s.Roles[id] = chat.Role{Name: "role", Permissions: chat.Override{A: int64(allow)}, Rank: rank}
	f.must(f.h.Server.Store.UpdateServer(context.Background(), s))
	return id
}

// group creates a group owned by owner with the other recipients.
func (f *msgFixture) group(owner *apitest.User, others ...*apitest.User) *chat.Channel {
	f.t.Helper()
	ch := &chat.Channel{ChannelType: chat.ChannelGroup, ID: chat.NewID(), Owner: owner.ID, Name: "group",
		Recipients: []chat.ID{owner.ID}}
	for _, o := range others {
		ch.Recipients = append(ch.Recipients, o.ID)
	}
	f.must(f.h.Server.Store.InsertChannel(context.Background(), ch))
	return ch
}

// dm creates a direct message between two friends.
func (f *msgFixture) dm(a, b *apitest.User) *chat.Channel {
	f.t.Helper()
	ctx := context.Background()
	st := f.h.Server.Store
	f.must(st.SetRelationship(ctx, a.ID, b.ID, chat.RelationFriend))
	f.must(st.SetRelationship(ctx, b.ID, a.ID, chat.RelationFriend))
	active := true
	ch := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: chat.NewID(), Active: &active,
		Recipients: []chat.ID{a.ID, b.ID}}
	f.must(st.InsertChannel(ctx, ch))
	return ch
}

// file stores an unused upload record under tag and returns its id.
func (f *msgFixture) file(tag string, uploader *apitest.User) string {
	f.t.Helper()
	id := chat.NewToken(42)
	f.must(f.h.Server.Store.InsertFile(context.Background(), &chat.FileRecord{
		File: chat.File{ID: id, Tag: tag, Filename: "a.txt", Metadata: chat.Metadata{Type: "Text"},
			ContentType: "text/plain", Size: 5},
		Hash: "h" + id, UploaderID: uploader.ID, UploadedAt: chat.Now()}))
	return id
}

// fileRecord reads an upload record back.
func (f *msgFixture) fileRecord(id string) *chat.FileRecord {
	f.t.Helper()
	r, err := f.h.Server.Store.FetchFile(context.Background(), id)
	f.must(err)
	return r
}

// bot creates a bot owned by owner and returns its user and token.
func (f *msgFixture) bot(owner *apitest.User, name string) (*apitest.User, string) {
	f.t.Helper()
	ctx := context.Background()
	st := f.h.Server.Store
	id := chat.NewID()
	token := chat.NewToken(64)
	f.must(st.InsertUser(ctx, &chat.User{ID: id, Username: name, Discriminator: "0042",
		Bot: &chat.BotInformation{Owner: owner.ID}}))
	f.must(st.InsertBot(ctx, &chat.Bot{ID: id, Owner: owner.ID, Token: token}))
	return &apitest.User{ID: id, Username: name}, token
}

// insert stores a message directly, bypassing the send route.
func (f *msgFixture) insert(ch chat.ID, author chat.ID, content string) *chat.Message {
	f.t.Helper()
	m := &chat.Message{ID: chat.NewID(), Channel: ch, Author: author, Content: &content}
	f.must(f.h.Server.Store.InsertMessage(context.Background(), m))
	return m
}

// send posts body as u and returns the response.
func (f *msgFixture) send(u *apitest.User, ch chat.ID, body any) *apitest.Response {
	f.t.Helper()
	return f.h.Do(apitest.Request{Method: http.MethodPost, Path: "/channels/" + string(ch) + "/messages",
		Body: body, Session: u.Token})
}

// sendOK posts content as u and returns the message.
func (f *msgFixture) sendOK(u *apitest.User, ch chat.ID, content string) map[string]any {
	f.t.Helper()
	res := f.send(u, ch, map[string]any{"content": content})
	if res.Status != http.StatusOK {
		f.t.Fatalf("send %q = %d %s", content, res.Status, res.Body)
	}
	return res.Map(f.t)
}

// do runs a request as u (no session when u is nil).
func (f *msgFixture) do(u *apitest.User, method, path string, body any) *apitest.Response {
	f.t.Helper()
	req := apitest.Request{Method: method, Path: path, Body: body}
	if u != nil {
		req.Session = u.Token
	}
	return f.h.Do(req)
}

// history reads the messages stored in a channel, newest first.
func (f *msgFixture) history(ch chat.ID) []*chat.Message {
	f.t.Helper()
	msgs, err := f.h.Server.Store.FetchMessages(context.Background(), store.MessageQuery{Channel: ch, Limit: 100})
	f.must(err)
	return msgs
}

func msgPath(ch chat.ID, parts ...any) string {
	p := "/channels/" + string(ch) + "/messages"
	for _, x := range parts {
		p += fmt.Sprintf("/%v", x)
	}
	return p
}
