package discord

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // attachment metadata
	_ "image/jpeg" // attachment metadata
	_ "image/png"  // attachment metadata
	"io"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"ermine/internal/chat"
	"ermine/internal/importer"
	"ermine/internal/store"
)

// Options say how exports become one Ermine server.
type Options struct {
	// ServerName names the server the import makes.
	ServerName string
	// Owner owns it: an existing user.
	Owner chat.ID
	// DefaultPermissions is what members hold in the new server (the
	// value a server created through the API gets).
	DefaultPermissions int64
	// Name gives an author a username and discriminator; taken holds the
	// "lower-cased name#discriminator" pairs handed out by this run but
	// perhaps not written yet.
	Name func(ctx context.Context, name, fallback string, taken map[string]bool) (string, string, error)
	// EmojiLimit is how many custom emoji the server may hold (the
	// instance's limit); the export's most used custom emoji become
	// server emoji up to it. 0 keeps none.
	EmojiLimit int
}

// Summary is what an import found in the exports (for the closing lines).
type Summary struct {
	Server   chat.ID
	Channels int
	Users    int
	Messages int64
}

// Import reads the export files (in the order given; see Find) into the
// pipeline as one server. Every object gets an id derived from its
// Discord id, its time part the original time (a message's the
// millisecond it was sent), so running the import again finds what it
// wrote and adds nothing. The files are read twice: once for the
// channels, authors and message ids, once to write the messages.
func Import(ctx context.Context, p *importer.Pipeline, files []string, opt Options) (*Summary, error) {
	if opt.ServerName == "" || opt.Owner == "" || opt.Name == nil {
		return nil, errors.New("discord import: a server name, an owner and a namer are needed")
	}
	im := &importState{p: p, opt: opt, users: map[string]*author{}, msgs: map[string]chat.ID{}, roles: map[string]Role{},
		taken: map[string]bool{}, emoji: map[string]*customEmoji{}, emojiIDs: map[string]chat.ID{}}
	if err := im.survey(ctx, files); err != nil {
		return nil, err
	}
	im.server = im.serverID()
	if err := im.writeUsers(ctx); err != nil {
		return nil, err
	}
	if err := im.writeServer(ctx); err != nil {
		return nil, err
	}
	if err := im.writeEmoji(ctx); err != nil {
		return nil, err
	}
	if err := im.writeMessages(ctx); err != nil {
		return nil, err
	}
	return &Summary{Server: im.server, Channels: len(im.chans), Users: len(im.users), Messages: im.total}, nil
}

// channel is one export file's channel, placed in the server.
type channel struct {
	file   string
	h      Header
	id     chat.ID
	last   chat.ID // the newest message it will hold
	order  int     // position in the file list
	parent string  // a thread's parent channel name
}

// author is an exported user.
type author struct {
	a      Author
	id     chat.ID
	joined time.Time // first seen
	roles  []string  // Discord role ids
	writes bool      // wrote a message (members are the writers)
}

type importState struct {
	p      *importer.Pipeline
	opt    Options
	guild  Guild
	server chat.ID
	chans  []*channel
	users  map[string]*author
	order  []string           // user ids in first-seen order
	msgs   map[string]chat.ID // every exported message id → its Ermine id
	roles  map[string]Role    // Discord role id → role
	taken  map[string]bool    // names handed out
	total  int64
	// emoji are the custom emoji reactions use, by Discord id; emojiIDs
	// the ones the server holds (written now or by an earlier run).
	emoji    map[string]*customEmoji
	emojiIDs map[string]chat.ID
}

// customEmoji is a custom Discord emoji met in reactions.
type customEmoji struct {
	e    Emoji
	path string // its image in the export, "" when not there
	uses int    // reactions with it (for choosing within the limit)
}

// mintID makes the id of a Discord object: the time part at t, the
// random part from kind and the Discord id, so that a second run makes
// the same id.
func mintID(kind, key string, t time.Time) chat.ID {
	sum := sha256.Sum256([]byte("ermine-import-discord\x00" + kind + "\x00" + key))
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(t)); err != nil {
		_ = id.SetTime(0)
	}
	copy(id[6:], sum[:10])
	return chat.ID(id.String())
}

// snowTime is a Discord id's time, or the zero time.
func snowTime(id string) time.Time {
	t, _ := SnowflakeTime(id)
	return t
}

// survey reads every file once: the channels, the authors and mentioned
// users, their roles, and every message id (for replies).
func (im *importState) survey(ctx context.Context, files []string) error {
	seen := map[string]bool{}
	for i, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		var ch *channel
		err = read(f, func(h *Header) error {
			if im.guild.ID == "" {
				im.guild = h.Guild
			}
			if seen[h.Channel.ID] {
				return fmt.Errorf("channel %s (%s) is in two files", h.Channel.ID, h.Channel.Name)
			}
			seen[h.Channel.ID] = true
			ch = &channel{file: path, h: *h, order: i, id: mintID("channel", h.Channel.ID, snowTime(h.Channel.ID))}
			if h.Channel.IsThread() {
				ch.parent = h.Channel.Category
			}
			return nil
		}, func(m *surveyed) error {
			t, err := ParseTime(m.Timestamp)
			if err != nil {
				return fmt.Errorf("message %s: timestamp %q: %w", m.ID, m.Timestamp, err)
			}
			id := mintID("message", m.ID, t)
			im.msgs[m.ID] = id
			if written(m) && id > ch.last {
				ch.last = id
			}
			im.see(m.Author, t, true)
			for _, u := range m.Mentions {
				im.see(u, t, false)
			}
			for _, r := range m.Reactions {
				for _, u := range r.Users {
					im.see(u, t, false)
				}
				if r.Emoji.ID != "" {
					im.seeEmoji(ch, r.Emoji, max(r.Count, len(r.Users)))
				}
			}
			for _, e := range m.Inline {
				if e.ID != "" {
					im.seeEmoji(ch, e, 1)
				}
			}
			return nil
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		im.chans = append(im.chans, ch)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	im.place()
	return nil
}

// surveyed is what the first pass reads of a message: the rest is only
// scanned over.
type surveyed struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	Timestamp   string            `json:"timestamp"`
	Content     string            `json:"content"`
	Author      Author            `json:"author"`
	Attachments []json.RawMessage `json:"attachments"`
	Embeds      []json.RawMessage `json:"embeds"`
	Mentions    []Author          `json:"mentions"`
	Inline      []Emoji           `json:"inlineEmojis"`
	Reactions   []struct {
		Emoji Emoji    `json:"emoji"`
		Count int      `json:"count"`
		Users []Author `json:"users"`
	} `json:"reactions"`
}

func (m *surveyed) key() (string, string) { return m.ID, m.Timestamp }

// written reports whether a message will be written (notices without
// an Ermine equivalent are not), for the channel's last message.
func written(m *surveyed) bool {
	switch m.Type {
	case MessageDefault, MessageReply, "", MessageMemberJoin, MessagePinned:
		return true
	}
	return strings.TrimSpace(m.Content) != "" || len(m.Attachments) > 0 || len(m.Embeds) > 0
}

// see records a user met at t.
func (im *importState) see(a Author, t time.Time, wrote bool) {
	if a.ID == "" {
		return
	}
	u := im.users[a.ID]
	if u == nil {
		u = &author{a: a, joined: t, id: mintID("user", a.ID, snowTime(a.ID))}
		im.users[a.ID] = u
		im.order = append(im.order, a.ID)
	}
	if wrote {
		u.writes = true
		if len(a.Roles) > 0 {
			u.roles = u.roles[:0]
			for _, r := range a.Roles {
				u.roles = append(u.roles, r.ID)
				im.roles[r.ID] = r
			}
		}
		if u.a.AvatarURL == "" {
			u.a.AvatarURL = a.AvatarURL
		}
	}
	if t.Before(u.joined) {
		u.joined = t
	}
}

// place orders the channels as the guild did: by position when the
// export says it, else as the files were given; a thread right after its
// parent channel.
func (im *importState) place() {
	pos := func(c *channel) int {
		if c.h.Channel.Position != nil {
			return *c.h.Channel.Position
		}
		return c.order
	}
	slices.SortStableFunc(im.chans, func(a, b *channel) int { return pos(a) - pos(b) })
	var out []*channel
	var threads []*channel
	for _, c := range im.chans {
		if c.parent != "" {
			threads = append(threads, c)
		} else {
			out = append(out, c)
		}
	}
	for _, t := range threads {
		at := len(out)
		for i, c := range out {
			if c.h.Channel.Name == t.parent {
				at = i + 1
				for at < len(out) && out[at].parent == t.parent {
					at++
				}
				break
			}
		}
		out = slices.Insert(out, at, t)
	}
	im.chans = out
}

// serverID is the id of the server the import makes: one per guild and
// name, so importing the same exports again finds it.
func (im *importState) serverID() chat.ID {
	return mintID("server", im.guild.ID+"\x00"+im.opt.ServerName, snowTime(im.guild.ID))
}

// writeUsers writes every exported user as an imported author (no
// account, UserFlagImported), with their avatar when exported locally.
func (im *importState) writeUsers(ctx context.Context) error {
	if im.p.Complete("users") {
		return nil
	}
	w := im.p.Collection("users", int64(len(im.order)))
	skip := im.p.Done("users")
	for i, did := range im.order {
		if int64(i) < skip {
			continue
		}
		u := im.users[did]
		w.ID(did)
		if _, err := im.p.Store().FetchUser(ctx, u.id); err == nil {
			w.Skip(did, "imported before")
			if err := w.Next(ctx); err != nil {
				return err
			}
			continue
		} else if !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("fetch user: %w", err)
		}
		name, disc, err := im.opt.Name(ctx, u.a.Name, "imported-"+did[max(0, len(did)-6):], im.taken)
		if err != nil {
			w.Skip(did, "no username left for "+u.a.Name)
			if err := w.Next(ctx); err != nil {
				return err
			}
			continue
		}
		im.taken[strings.ToLower(name)+"#"+disc] = true
		user := &chat.User{ID: u.id, Username: name, Discriminator: disc, Flags: chat.UserFlagImported, Relationship: chat.RelationNone}
		if u.a.Nickname != "" && u.a.Nickname != u.a.Name {
			dn := u.a.Nickname
			user.DisplayName = &dn
		}
		if u.a.IsBot {
			user.Bot = &chat.BotInformation{Owner: im.opt.Owner}
		}
		if f := im.localFile(u.a.AvatarURL); f != "" {
			rec := im.fileRecord("avatar", did, chat.TagAvatars, filepath.Base(f), u.id, u.joined)
			rec.UserID = &u.id
			rec.UsedFor = "avatar"
			if err := w.File(ctx, rec, func() (io.ReadCloser, error) { return os.Open(f) }); err != nil {
				w.Drop(did, "avatar file missing from the export")
			} else {
				user.Avatar = &rec.File
			}
		}
		w.User(user)
		if err := w.Next(ctx); err != nil {
			return err
		}
	}
	return w.Close(ctx)
}

// localFile returns the path of a file the export holds next to its
// JSON (a relative path in the export), or "" for a remote address.
func (im *importState) localFile(ref string) string {
	for _, c := range im.chans {
		if p := localFileAt(c.file, ref); p != "" {
			return p
		}
	}
	return ""
}

// localFileAt resolves a file the export at exportFile names: a path
// relative to the export's directory (with "/" or, from an export made
// on Windows, "\"), or an absolute one (the tool writes those when the
// media directory lies outside the export's). It returns "" for a remote
// address or a file that is not there.
func localFileAt(exportFile, ref string) string {
	if ref == "" || strings.Contains(ref, "://") {
		return ""
	}
	p := filepath.FromSlash(strings.ReplaceAll(ref, "\\", "/"))
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(exportFile), p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
}

// fileRecord is the record of an imported file, its id derived from the
// Discord object it comes from.
func (im *importState) fileRecord(kind, key, tag, name string, uploader chat.ID, at time.Time) *chat.FileRecord {
	sum := sha256.Sum256([]byte("ermine-import-discord-file\x00" + kind + "\x00" + key))
	id := fmt.Sprintf("%x", sum[:21])
	ct := mime.TypeByExtension(strings.ToLower(filepath.Ext(name)))
	if ct == "" {
		ct = "application/octet-stream"
	}
	ct, _, _ = strings.Cut(ct, ";")
	return &chat.FileRecord{File: chat.File{ID: id, Tag: tag, Filename: name, ContentType: ct, Metadata: chat.Metadata{Type: chat.MetadataFile}},
		UploaderID: uploader, UploadedAt: chat.TimeOf(at)}
}

// imageMetadata fills an image's metadata from its header.
func imageMetadata(rec *chat.FileRecord, path string) {
	if !strings.HasPrefix(rec.ContentType, "image/") {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if cfg, _, err := image.DecodeConfig(f); err == nil {
		w, h := cfg.Width, cfg.Height
		rec.Metadata = chat.Metadata{Type: chat.MetadataImage, Width: &w, Height: &h}
	}
}

// writeServer writes the server with its channels, categories, roles and
// members (the owner and every author).
func (im *importState) writeServer(ctx context.Context) error {
	if im.p.Complete("server") {
		return nil
	}
	w := im.p.Collection("server", 1)
	if im.p.Done("server") > 0 {
		return w.Close(ctx)
	}
	st := im.p.Store()
	if _, err := st.FetchServer(ctx, im.server); err == nil {
		w.Skip(string(im.server), "imported before")
		if err := w.Next(ctx); err != nil {
			return err
		}
		return w.Close(ctx)
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("fetch server: %w", err)
	}
	w.ID(im.guild.ID)
	s := &chat.Server{ID: im.server, Owner: im.opt.Owner, Name: im.opt.ServerName, DefaultPermissions: im.opt.DefaultPermissions,
		Channels: []chat.ID{}}
	var cats []chat.Category
	catIndex := map[string]int{}
	for _, c := range im.chans {
		s.Channels = append(s.Channels, c.id)
		cat := c.h.Channel.Category
		if c.parent != "" {
			// A thread sits in its parent channel's category.
			for _, p := range im.chans {
				if p.parent == "" && p.h.Channel.Name == c.parent {
					cat = p.h.Channel.Category
					break
				}
			}
		}
		if cat == "" {
			continue
		}
		i, ok := catIndex[cat]
		if !ok {
			i = len(cats)
			catIndex[cat] = i
			cats = append(cats, chat.Category{ID: string(mintID("category", im.guild.ID+"\x00"+cat, snowTime(im.guild.ID)))[14:], Title: cat})
		}
		cats[i].Channels = append(cats[i].Channels, c.id)
	}
	s.Categories = cats
	if len(im.roles) > 0 {
		s.Roles = map[chat.ID]chat.Role{}
		top := 0
		for _, r := range im.roles {
			top = max(top, r.Position)
		}
		for did, r := range im.roles {
			id := mintID("role", did, snowTime(did))
			role := chat.Role{ID: id, Name: r.Name, Rank: int64(top - r.Position)}
			if r.Color != "" {
				c := r.Color
				role.Colour = &c
			}
			s.Roles[id] = role
		}
	}
	w.Server(s)
	for _, c := range im.chans {
		ch := &chat.Channel{ChannelType: chat.ChannelText, ID: c.id, Server: im.server, Name: channelName(c.h.Channel.Name)}
		if t := c.h.Channel.Topic; t != nil && *t != "" {
			topic := *t
			ch.Description = &topic
		}
		if c.h.Channel.Type == ChannelVoice || c.h.Channel.Type == ChannelStage {
			ch.ChannelType = chat.ChannelVoice
		}
		if c.last != "" {
			last := c.last
			ch.LastMessageID = &last
		}
		w.Channel(ch)
	}
	w.Member(&chat.Member{ID: chat.MemberID{Server: im.server, User: im.opt.Owner}, JoinedAt: chat.Now()})
	for _, did := range im.order {
		u := im.users[did]
		if !u.writes || u.id == im.opt.Owner {
			continue
		}
		m := &chat.Member{ID: chat.MemberID{Server: im.server, User: u.id}, JoinedAt: chat.TimeOf(u.joined)}
		for _, r := range u.roles {
			m.Roles = append(m.Roles, mintID("role", r, snowTime(r)))
		}
		w.Member(m)
	}
	if err := w.Next(ctx); err != nil {
		return err
	}
	return w.Close(ctx)
}

// channelName is a Discord channel's name within Ermine's limit.
func channelName(s string) string {
	if r := []rune(s); len(r) > 32 {
		return string(r[:32])
	}
	if s == "" {
		return "channel"
	}
	return s
}

// messageBatch is how many messages are checked for an earlier import at once.
const messageBatch = 500

// writeMessages reads every file again and writes its messages.
func (im *importState) writeMessages(ctx context.Context) error {
	if im.p.Complete("messages") {
		for _, c := range im.chans {
			im.total += int64(im.count(c))
		}
		return nil
	}
	w := im.p.Collection("messages", int64(len(im.msgs)))
	skip := im.p.Done("messages")
	var n int64
	for _, c := range im.chans {
		var pending []*Message
		flush := func() error {
			if len(pending) == 0 {
				return nil
			}
			ids := make([]chat.ID, len(pending))
			for i, m := range pending {
				ids[i] = im.msgs[m.ID]
			}
			have, err := im.p.Store().FetchMessagesByID(ctx, c.id, ids)
			if err != nil {
				return fmt.Errorf("fetch messages: %w", err)
			}
			exists := map[chat.ID]bool{}
			for _, m := range have {
				exists[m.ID] = true
			}
			for _, m := range pending {
				if err := im.message(ctx, w, c, m, exists[im.msgs[m.ID]]); err != nil {
					return err
				}
				if err := w.Next(ctx); err != nil {
					return err
				}
			}
			pending = pending[:0]
			return nil
		}
		f, err := os.Open(c.file)
		if err != nil {
			return err
		}
		err = decodeAhead(ctx, f, func(m *Message) error {
			n++
			im.total++
			if n <= skip {
				return nil
			}
			pending = append(pending, m)
			if len(pending) >= messageBatch {
				return flush()
			}
			return nil
		})
		f.Close()
		if err == nil {
			err = flush()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.file, err)
		}
	}
	return w.Close(ctx)
}

// decodeAhead reads an export's messages in a goroutine of its own, a
// batch ahead of fn, so decoding the JSON and writing the store share
// the machine's cores.
func decodeAhead(ctx context.Context, r io.Reader, fn func(*Message) error) error {
	batches := make(chan []*Message, 2)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		defer close(batches)
		var b []*Message
		send := func() error {
			select {
			case batches <- b:
				b = make([]*Message, 0, messageBatch)
				return nil
			case <-stop:
				return errStop
			}
		}
		err := Read(r, nil, func(m *Message) error {
			b = append(b, m)
			if len(b) >= messageBatch {
				return send()
			}
			return nil
		})
		if err == nil && len(b) > 0 {
			err = send()
		}
		done <- err
	}()
	var err error
	for b := range batches {
		if err != nil {
			continue
		}
		for _, m := range b {
			if err = fn(m); err != nil {
				break
			}
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			close(stop)
		}
	}
	if rerr := <-done; err == nil && !errors.Is(rerr, errStop) {
		err = rerr
	}
	return err
}

// count counts a channel's messages (for a resumed run's summary).
func (im *importState) count(c *channel) int {
	n := 0
	f, err := os.Open(c.file)
	if err != nil {
		return 0
	}
	defer f.Close()
	_ = Read(f, nil, func(*Message) error { n++; return nil })
	return n
}

// message converts one message and queues it.
func (im *importState) message(ctx context.Context, w *importer.Writer, c *channel, m *Message, exists bool) error {
	id := im.msgs[m.ID]
	w.ID(m.ID)
	if exists {
		w.Skip(m.ID, "imported before")
		return nil
	}
	u := im.users[m.Author.ID]
	if u == nil {
		w.Skip(m.ID, "no author")
		return nil
	}
	msg := &chat.Message{ID: id, Channel: c.id, Author: u.id}
	switch m.Type {
	case MessageDefault, MessageReply, "":
	case MessageMemberJoin:
		msg.Author = chat.SystemID
		msg.System = &chat.SystemMessage{Type: "user_joined", ID: u.id}
	case MessagePinned:
		ref := im.ref(m)
		if ref == "" {
			w.Skip(m.ID, "pin notice of a message not in the export")
			return nil
		}
		msg.Author = chat.SystemID
		msg.System = &chat.SystemMessage{Type: "message_pinned", ID: ref, By: u.id}
	default:
		if strings.TrimSpace(m.Content) == "" && len(m.Attachments) == 0 && len(m.Embeds) == 0 {
			w.Skip(m.ID, "Discord notice ("+m.Type+") with no Ermine equivalent")
			return nil
		}
	}
	if msg.System == nil {
		if m.Content != "" {
			content := im.inlineEmoji(m.Content, m.InlineEmojis)
			msg.Content = &content
		}
		if m.TimestampEdited != nil && *m.TimestampEdited != "" {
			if t, err := ParseTime(*m.TimestampEdited); err == nil {
				e := chat.TimeOf(t)
				msg.Edited = &e
			}
		}
		if m.IsPinned {
			yes := true
			msg.Pinned = &yes
		}
		if m.Reference != nil && m.Reference.MessageID != nil && m.Type == MessageReply {
			if ref := im.ref(m); ref != "" {
				msg.Replies = []chat.ID{ref}
			} else {
				w.Drop(m.ID, "reply to a message not in the export")
			}
		}
		for _, mu := range m.Mentions {
			if x := im.users[mu.ID]; x != nil && !slices.Contains(msg.Mentions, x.id) {
				msg.Mentions = append(msg.Mentions, x.id)
			}
		}
		for _, r := range m.Reactions {
			key := r.Emoji.Name
			if r.Emoji.ID != "" {
				id, ok := im.emojiIDs[r.Emoji.ID]
				if !ok {
					w.Drop(m.ID, "reaction with a custom Discord emoji that is not kept (see the emoji lines)")
					continue
				}
				key = string(id)
			}
			var who []chat.ID
			for _, ru := range r.Users {
				if x := im.users[ru.ID]; x != nil && !slices.Contains(who, x.id) {
					who = append(who, x.id)
				}
			}
			if len(who) == 0 {
				w.Drop(m.ID, "reaction without its users (export made without them)")
				continue
			}
			if msg.Reactions == nil {
				msg.Reactions = map[string][]chat.ID{}
			}
			msg.Reactions[key] = who
		}
		t, _ := ParseTime(m.Timestamp)
		for _, a := range m.Attachments {
			if path := im.localFileIn(c, a.URL); path != "" {
				rec := im.fileRecord("attachment", a.ID, chat.TagAttachments, a.FileName, u.id, t)
				imageMetadata(rec, path)
				rec.MessageID = &id
				rec.UsedFor = "message"
				if err := w.File(ctx, rec, func() (io.ReadCloser, error) { return os.Open(path) }); err != nil {
					w.Drop(a.ID, "attachment unreadable: "+err.Error())
					continue
				}
				msg.Attachments = append(msg.Attachments, rec.File)
				continue
			}
			if strings.Contains(a.URL, "://") {
				// Never fetched: the address stays, as a link.
				url, name := a.URL, a.FileName
				msg.Embeds = append(msg.Embeds, chat.Embed{Type: "Website", URL: &url, OriginalURL: &url, Title: &name})
				continue
			}
			w.Drop(a.ID, "attachment file missing from the export")
		}
		for _, e := range m.Embeds {
			msg.Embeds = append(msg.Embeds, embed(e))
		}
		for _, s := range m.Stickers {
			name, src := s.Name, s.SourceURL
			e := chat.Embed{Type: "Text", Title: &name}
			if src != "" && strings.Contains(src, "://") {
				e.IconURL = &src
			}
			msg.Embeds = append(msg.Embeds, e)
		}
		if msg.Content == nil && len(msg.Attachments) == 0 && len(msg.Embeds) == 0 {
			w.Skip(m.ID, "empty message")
			return nil
		}
	}
	w.Message(msg)
	return nil
}

// ref returns the Ermine id of the message m refers to, or "" when the
// export does not hold it.
func (im *importState) ref(m *Message) chat.ID {
	if m.Reference == nil || m.Reference.MessageID == nil {
		return ""
	}
	return im.msgs[*m.Reference.MessageID]
}

// localFileIn resolves a path relative to the channel's export file.
func (im *importState) localFileIn(c *channel, ref string) string { return localFileAt(c.file, ref) }

// embed turns a Discord embed into a text embed.
func embed(e Embed) chat.Embed {
	out := chat.Embed{Type: "Text"}
	set := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	out.Title = set(e.Title)
	out.URL = set(e.URL)
	desc := e.Description
	for _, f := range e.Fields {
		desc += "\n\n**" + f.Name + "**\n" + f.Value
	}
	if e.Footer != nil && e.Footer.Text != "" {
		desc += "\n\n" + e.Footer.Text
	}
	out.Description = set(strings.TrimSpace(desc))
	out.Colour = set(e.Color)
	if e.Author != nil {
		out.IconURL = set(e.Author.IconURL)
	}
	return out
}
