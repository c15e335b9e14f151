package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// channelAccess is a channel as a user may use it: the channel, what the
// user holds in it and, for server channels, the server and the user's
// membership (which a sent message carries).
type channelAccess struct {
	ch     *chat.Channel
	perms  perm.Set
	server *chat.Server
	member *chat.Member
}

// openChannel fetches a channel the user can see (ViewChannel), else
// NotFound. It gathers the same facts as channelPermissions, but for
// server channels in one store lookup that also keeps the server and
// member, which sending needs: this is the busiest path of the API.
func (a *App) openChannel(ctx context.Context, user *chat.User, id chat.ID) (*channelAccess, error) {
	ch, s, m, err := a.store.FetchChannelAccess(ctx, id, user.ID)
	if err != nil {
		return nil, notFound(err)
	}
	return a.channelAccessOf(ctx, user, ch, s, m)
}

// openChannelAs is openChannel for caller, taking the channel read with
// their session when there is one (AuthenticateForChannel).
func (a *App) openChannelAs(ctx context.Context, caller *Caller, id chat.ID) (*channelAccess, error) {
	read := caller.takeRead(id)
	if read == nil {
		return a.openChannel(ctx, caller.User, id)
	}
	if read.Channel == nil {
		return nil, chat.ErrNotFound
	}
	return a.channelAccessOf(ctx, caller.User, read.Channel, read.Server, read.Member)
}

// channelAccessOf decides what user holds in channel ch of server s
// (nil for other channels), where they are member m (nil when not one).
func (a *App) channelAccessOf(ctx context.Context, user *chat.User, ch *chat.Channel, s *chat.Server, m *chat.Member) (*channelAccess, error) {
	var err error
	acc := &channelAccess{ch: ch}
	if ch.IsServerChannel() {
		if s == nil {
			return nil, dbError("fetch server", fmt.Errorf("server %s of channel %s: %w", ch.Server, ch.ID, store.ErrNotFound))
		}
		acc.server, acc.member = s, m
		acc.perms = perm.ForChannel(perm.ChannelFacts{Channel: ch, Server: s, Member: m, UserID: user.ID,
			Privileged: user.Privileged, Now: a.now()})
	} else if acc.perms, err = a.channelPermissions(ctx, user, ch); err != nil {
		return nil, err
	}
	if !acc.perms.Has(perm.ViewChannel) {
		return nil, chat.ErrNotFound
	}
	return acc, nil
}

// channelMessage fetches a message of channel through st, else NotFound.
func channelMessage(ctx context.Context, st store.Store, channel, id chat.ID) (*chat.Message, error) {
	m, err := st.FetchMessage(ctx, id)
	if err != nil {
		return nil, notFound(err)
	}
	if m.Channel != channel {
		return nil, chat.ErrNotFound
	}
	return m, nil
}

// visibleMessage fetches a message of channel that viewer may see, else
// NotFound: an ephemeral message only the user it is for and its author
// see (reference pull request #929).
func visibleMessage(ctx context.Context, st store.Store, channel, id, viewer chat.ID) (*chat.Message, error) {
	m, err := channelMessage(ctx, st, channel, id)
	if err != nil {
		return nil, err
	}
	if !seenBy(m, viewer) {
		return nil, chat.ErrNotFound
	}
	return m, nil
}

// seenBy reports whether user may see m: anyone, unless it is ephemeral.
func seenBy(m *chat.Message, user chat.ID) bool {
	return m.Ephemeral == nil || *m.Ephemeral == user || m.Author == user
}

// messageTopic is where the events of m go: the channel's topic, or for
// an ephemeral message only the connections of the user it is for.
func messageTopic(m *chat.Message) string {
	if m.Ephemeral != nil {
		return event.Private(*m.Ephemeral)
	}
	return event.Of(m.Channel)
}

// authorView is the sender as a sent message and its Message event show
// it: relationship None, as the reference sends it (one event goes to
// every receiver, so it cannot hold each one's relationship; clients take
// it from the users they hold), no relations, and an invisible sender
// shown offline.
func (a *App) authorView(u *chat.User) *chat.User {
	v := *u
	v.Relations = nil
	v.Relationship = chat.RelationNone
	v.Status = withoutInvisible(u.Status)
	v.Online = a.looksOnline(u)
	return &v
}

// contentSize is the size the message length limit applies to: the UTF-8
// bytes of the content and of every text embed's description.
func contentSize(content *string, embeds []chat.SendableEmbed) int {
	n := 0
	if content != nil {
		n = len(*content)
	}
	for _, e := range embeds {
		if e.Description != nil {
			n += len(*e.Description)
		}
	}
	return n
}

// consumeFile marks an unused upload of the attachments tag as used by
// message and returns it. Unknown, deleted, already used or wrongly
// tagged ids are NotFound, as in the original server.
func consumeFile(ctx context.Context, tx store.Store, id string, message chat.ID) (*chat.File, error) {
	f, err := tx.FetchFile(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, chat.ErrNotFound
	}
	if err != nil {
		return nil, dbError("fetch file", err)
	}
	if f.Tag != chat.TagAttachments || f.UsedFor != "" || (f.Deleted != nil && *f.Deleted) {
		return nil, chat.ErrNotFound
	}
	f.UsedFor = "message"
	f.MessageID = &message
	if err := tx.UpdateFile(ctx, f); err != nil {
		return nil, dbError("update file", err)
	}
	file := f.File
	return &file, nil
}

// textEmbeds turns sendable embeds into Text embeds, consuming their media.
func textEmbeds(ctx context.Context, tx store.Store, message chat.ID, in []chat.SendableEmbed) ([]chat.Embed, error) {
	out := make([]chat.Embed, 0, len(in))
	for _, e := range in {
		em := chat.Embed{Type: "Text", IconURL: e.IconURL, URL: e.URL, Title: e.Title,
			Description: e.Description, Colour: e.Colour}
		if e.Media != nil {
			f, err := consumeFile(ctx, tx, *e.Media, message)
			if err != nil {
				return nil, err
			}
			em.Media = f
		}
		out = append(out, em)
	}
	return out, nil
}

// messageFiles lists the uploads a message holds: attachments and the
// media of its text embeds.
func messageFiles(m *chat.Message) []string {
	var ids []string
	for _, f := range m.Attachments {
		ids = append(ids, f.ID)
	}
	for _, e := range m.Embeds {
		if e.Media != nil {
			ids = append(ids, e.Media.ID)
		}
	}
	return ids
}

// releaseFiles marks uploads deleted; the file service removes them.
func releaseFiles(ctx context.Context, tx store.Store, ids []string) error {
	for _, id := range ids {
		f, err := tx.FetchFile(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return dbError("fetch file", err)
		}
		deleted := true
		f.Deleted = &deleted
		if err := tx.UpdateFile(ctx, f); err != nil {
			return dbError("update file", err)
		}
	}
	return nil
}

// mentionAge is how old an account must be to mention anyone in a
// discoverable server.
const mentionAge = 12 * time.Hour

// SendMessage posts a message to a channel as the caller
// (POST /channels/{target}/messages). key is the Idempotency-Key header,
// empty when absent; it, or else the body's nonce, guards against a send
// being posted twice (DuplicateNonce). The returned message carries the
// author's user and, in servers, member, as does the Message event.
func (a *App) SendMessage(ctx context.Context, c *Caller, channel chat.ID, data chat.MessageSend, key string) (*chat.Message, error) {
	acc, err := a.openChannelAs(ctx, c, channel)
	if err != nil {
		return nil, err
	}
	now := a.now()
	return a.postMessage(ctx, acc, sender{id: c.ID(), user: c.User, bot: c.User.IsBot(),
		limits: a.settings.Limits.For(c.ID(), now)}, data, key)
}

// sender is who posts a message: a user (or bot) or a webhook.
type sender struct {
	id      chat.ID
	user    *chat.User           // nil for a webhook
	webhook *chat.MessageWebhook // nil for a user
	bot     bool
	limits  UserLimits
}

// postMessage checks a new message against what the sender holds in the
// channel (acc.perms), stores it and publishes the Message event.
func (a *App) postMessage(ctx context.Context, acc *channelAccess, from sender, data chat.MessageSend, key string) (*chat.Message, error) {
	if err := perm.Require(acc.perms, perm.SendMessage); err != nil {
		return nil, err
	}
	now := a.now()
	limits := from.limits
	m := &chat.Message{ID: chat.NewIDAt(now), Channel: acc.ch.ID, Author: from.id, Webhook: from.webhook,
		AuthorBot: from.user != nil && from.bot}
	if data.Ephemeral != nil {
		// Only bots send ephemeral messages, to someone who can see the
		// channel.
		if from.user == nil || !from.bot {
			return nil, chat.ErrIsNotBot
		}
		ok, err := a.canSee(ctx, acc, *data.Ephemeral)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, chat.ErrInvalidProperty
		}
		m.Ephemeral = data.Ephemeral
	}

	content := data.Content
	if content != nil && *content == "" {
		content = nil
	}
	if content == nil && len(data.Attachments) == 0 && len(data.Embeds) == 0 {
		return nil, chat.ErrEmptyMessage
	}
	if contentSize(content, data.Embeds) > limits.MessageLength {
		return nil, chat.ErrPayloadTooLarge
	}
	m.Content = content

	if n := len(data.Attachments); n > 0 {
		if n > limits.MessageAttachments {
			return nil, chat.ErrTooManyAttachments(limits.MessageAttachments)
		}
		if err := perm.Require(acc.perms, perm.UploadFiles); err != nil {
			return nil, err
		}
	}
	if n := len(data.Embeds); n > 0 {
		if n > a.settings.Limits.MessageEmbeds {
			return nil, chat.ErrTooManyEmbeds(a.settings.Limits.MessageEmbeds)
		}
		if err := perm.Require(acc.perms, perm.SendEmbeds); err != nil {
			return nil, err
		}
	}
	if len(data.Replies) > a.settings.Limits.MessageReplies {
		return nil, chat.ErrTooManyReplies(a.settings.Limits.MessageReplies)
	}
	if data.Masquerade != nil {
		if err := perm.Require(acc.perms, perm.Masquerade); err != nil {
			return nil, err
		}
		if data.Masquerade.Colour != nil {
			if err := perm.Require(acc.perms, perm.ManageRole); err != nil {
				return nil, err
			}
		}
		m.Masquerade = data.Masquerade
	}
	if data.Interactions != nil && !data.Interactions.IsDefault() {
		if err := a.checkInteractions(ctx, acc.perms, data.Interactions); err != nil {
			return nil, err
		}
		m.Interactions = data.Interactions
	}
	if from.user != nil { // webhooks may use any emoji, as in the reference
		var used []chat.ID
		if content != nil {
			used = contentEmojis(*content)
		}
		if m.Interactions != nil {
			for _, e := range m.Interactions.Reactions {
				used = append(used, chat.ID(e))
			}
		}
		if err := a.checkExternalEmojis(ctx, acc, used); err != nil {
			return nil, err
		}
	}

	// Accounts younger than mentionAge mention nobody through replies or
	// flags in discoverable servers, which are open to anyone.
	quiet := acc.server != nil && acc.server.Discoverable && now.Sub(from.id.Time()) < mentionAge
	var err error
	if m.Flags, err = messageFlags(from.bot, data.Flags, quiet); err != nil {
		return nil, err
	}

	var mentioned []chat.ID
	if err := a.resolveReplies(ctx, m, data.Replies, quiet, &mentioned); err != nil {
		return nil, err
	}
	mass, err := a.applyMentions(ctx, acc, m, mentioned)
	if err != nil {
		return nil, err
	}
	if m.Flags&(chat.MessageFlagMentionsEveryone|chat.MessageFlagMentionsOnline) != 0 {
		if err := perm.Require(acc.perms, perm.MentionEveryone); err != nil {
			return nil, err
		}
	}

	if from.user != nil { // webhooks are not held by slowmode
		if err := a.checkSlowmode(ctx, from.id, acc.ch, acc.perms); err != nil {
			return nil, err
		}
	}

	nonce := key
	if nonce == "" && data.Nonce != nil {
		nonce = *data.Nonce
	}
	guard := ""
	if nonce != "" {
		guard = string(from.id) + "\x00" + nonce
		fresh, err := a.sends.nonces.Reserve(ctx, guard)
		if err != nil {
			// Refusing every send while the shared store is down would
			// lose more than a rare duplicate: send without the guard.
			a.log.WarnContext(ctx, "nonce guard unavailable: sending without it", "err", err)
			fresh, guard = true, ""
		}
		if !fresh {
			return nil, chat.ErrDuplicateNonce
		}
	} else {
		nonce = string(chat.NewIDAt(now))
	}
	m.Nonce = &nonce

	tracked := a.trackedMentions(acc.ch, m, mass)
	if m.Ephemeral != nil {
		tracked = nil // nobody else sees it to have it unread
	}
	if err := a.insertMessage(ctx, m, data, tracked); err != nil {
		if guard != "" {
			if rerr := a.sends.nonces.Release(context.WithoutCancel(ctx), guard); rerr != nil {
				a.log.WarnContext(ctx, "release nonce", "err", rerr)
			}
		}
		return nil, err
	}
	if m.Ephemeral == nil { // the channel's newest message is one everyone sees
		a.sends.lastMessages.Record(acc.ch.ID, m.ID)
		if acc.ch.ChannelType == chat.ChannelDirectMessage && (acc.ch.Active == nil || !*acc.ch.Active) {
			a.activateDirectMessage(ctx, acc.ch.ID)
		}
	}

	out := *m
	if from.user != nil {
		out.User = a.authorView(from.user)
		out.Member = acc.member
	}
	a.publish(ctx, chat.MessageEvent{Type: chat.EvMessage, Message: &out}, messageTopic(m))
	a.notifyMessage(ctx, acc.ch, m, from, tracked)
	// Links are previewed for senders who may send embeds, and always for
	// webhooks, as in the reference.
	if from.webhook != nil || acc.perms.Has(perm.SendEmbeds) {
		a.queueLinkEmbeds(ctx, m)
	}
	return &out, nil
}

// insertMessage stores a new message with its uploads and mentions in one
// transaction; a message with neither is a single write.
func (a *App) insertMessage(ctx context.Context, m *chat.Message, data chat.MessageSend, tracked []chat.ID) error {
	if len(data.Attachments) == 0 && len(data.Embeds) == 0 && len(tracked) == 0 {
		return dbError("insert message", a.sends.writer.Write(m))
	}
	return a.store.InTx(ctx, func(tx store.Store) error {
		for _, id := range data.Attachments {
			f, err := consumeFile(ctx, tx, id, m.ID)
			if err != nil {
				return err
			}
			m.Attachments = append(m.Attachments, *f)
		}
		if len(data.Embeds) > 0 {
			embeds, err := textEmbeds(ctx, tx, m.ID, data.Embeds)
			if err != nil {
				return err
			}
			m.Embeds = embeds
		}
		if err := tx.InsertMessage(ctx, m); err != nil {
			return dbError("insert message", err)
		}
		if len(tracked) > 0 {
			if err := tx.AddMentions(ctx, m.Channel, m.ID, tracked); err != nil {
				return dbError("add mentions", err)
			}
		}
		return nil
	})
}

// messageFlags checks the flags a sender asked for. Only bots may set the
// mention flags, and not both; users mention everyone through content.
func messageFlags(bot bool, in *uint32, quiet bool) (uint32, error) {
	if in == nil {
		return 0, nil
	}
	const all = chat.MessageFlagSuppressNotifications | chat.MessageFlagMentionsEveryone | chat.MessageFlagMentionsOnline
	const mass = chat.MessageFlagMentionsEveryone | chat.MessageFlagMentionsOnline
	f := *in
	if f > all {
		return 0, chat.ErrInvalidProperty
	}
	if f&mass != 0 {
		if !bot {
			return 0, chat.ErrIsNotBot
		}
		if f&mass == mass {
			return 0, chat.ErrInvalidFlagValue
		}
		if quiet {
			f &^= mass
		}
	}
	return f, nil
}

// resolveReplies checks the replied messages are in the message's channel
// and adds the authors of those replied with mention to mentioned.
func (a *App) resolveReplies(ctx context.Context, m *chat.Message, replies []chat.ReplyIntent, quiet bool, mentioned *[]chat.ID) error {
	seen := map[chat.ID]bool{}
	for _, r := range replies {
		if seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		target, err := visibleMessage(ctx, a.store, m.Channel, r.ID, m.Author)
		if errors.Is(err, chat.ErrNotFound) {
			if r.FailIfNotExists == nil || *r.FailIfNotExists {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		m.Replies = append(m.Replies, target.ID)
		if r.Mention && !quiet && target.Author != chat.SystemID && target.Webhook == nil {
			*mentioned = append(*mentioned, target.Author)
		}
	}
	return nil
}

// applyMentions parses the content's mentions into m: users who can see
// the channel (plus mentioned, from replies), existing roles (needing
// MentionRoles) and mass mentions (needing MentionEveryone). It reports
// whether the message mentions everyone or everyone online.
func (a *App) applyMentions(ctx context.Context, acc *channelAccess, m *chat.Message, mentioned []chat.ID) (bool, error) {
	var found mentions
	if m.Content != nil {
		found = parseMentions(*m.Content)
	}
	if found.Everyone || found.Online {
		if err := perm.Require(acc.perms, perm.MentionEveryone); err != nil {
			return false, err
		}
		if found.Everyone {
			m.Flags |= chat.MessageFlagMentionsEveryone
		} else {
			m.Flags |= chat.MessageFlagMentionsOnline
		}
	}
	if acc.server != nil {
		for _, r := range found.Roles {
			if _, ok := acc.server.Roles[r]; ok {
				m.RoleMentions = append(m.RoleMentions, r)
			}
		}
		if len(m.RoleMentions) > 0 {
			if err := perm.Require(acc.perms, perm.MentionRoles); err != nil {
				return false, err
			}
		}
	}
	seen := map[chat.ID]bool{}
	for _, u := range append(found.Users, mentioned...) {
		if seen[u] {
			continue
		}
		seen[u] = true
		ok, err := a.canSee(ctx, acc, u)
		if err != nil {
			return false, err
		}
		if ok {
			m.Mentions = append(m.Mentions, u)
		}
	}
	return found.Everyone || found.Online || m.Flags&(chat.MessageFlagMentionsEveryone|chat.MessageFlagMentionsOnline) != 0, nil
}

// canSee reports whether user can see the channel, so that mentioning
// them means something: recipients of direct messages and groups, members
// of a server holding ViewChannel; nobody in saved messages.
func (a *App) canSee(ctx context.Context, acc *channelAccess, user chat.ID) (bool, error) {
	switch acc.ch.ChannelType {
	case chat.ChannelDirectMessage, chat.ChannelGroup:
		return acc.ch.HasRecipient(user), nil
	case chat.ChannelText, chat.ChannelVoice:
		mem, err := a.store.FetchMember(ctx, acc.server.ID, user)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, dbError("fetch member", err)
		}
		p := perm.ForChannel(perm.ChannelFacts{Channel: acc.ch, Server: acc.server, Member: mem, UserID: user, Now: a.now()})
		return p.Has(perm.ViewChannel), nil
	}
	return false, nil
}

// trackedMentions lists whose unread mentions a new message joins: the
// mentioned users, and in direct messages and groups every recipient
// when the message mentions anyone at all.
func (a *App) trackedMentions(ch *chat.Channel, m *chat.Message, mass bool) []chat.ID {
	switch ch.ChannelType {
	case chat.ChannelDirectMessage, chat.ChannelGroup:
		if len(m.Mentions) > 0 || len(m.RoleMentions) > 0 || mass {
			return ch.Recipients
		}
		return nil
	}
	return m.Mentions
}

// checkInteractions checks the reactions a message offers: React is
// needed, at most MessageReactions of them, each a usable emoji, and
// restrict_reactions only with a list.
func (a *App) checkInteractions(ctx context.Context, held perm.Set, in *chat.Interactions) error {
	if in.RestrictReactions && len(in.Reactions) == 0 {
		return chat.ErrInvalidProperty
	}
	if len(in.Reactions) > a.settings.Limits.MessageReactions {
		return chat.ErrInvalidProperty
	}
	if len(in.Reactions) > 0 {
		if err := perm.Require(held, perm.React); err != nil {
			return err
		}
	}
	for _, e := range in.Reactions {
		if err := a.checkEmoji(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// FetchMessage returns one message of a channel the caller can see
// (GET /channels/{target}/messages/{msg}).
func (a *App) FetchMessage(ctx context.Context, c *Caller, channel, id chat.ID) (*chat.Message, error) {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	return visibleMessage(ctx, a.store, acc.ch.ID, id, c.ID())
}

// QueryMessages returns a page of a channel's history
// (GET /channels/{target}/messages); it needs ReadMessageHistory.
func (a *App) QueryMessages(ctx context.Context, c *Caller, channel chat.ID, q chat.MessageQuery) (*chat.BulkMessages, error) {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	if err := perm.Require(acc.perms, perm.ReadMessageHistory); err != nil {
		return nil, err
	}
	sq := store.MessageQuery{Channel: acc.ch.ID, Limit: chat.PageSize(q.Limit), Sort: store.SortLatest, Viewer: c.ID()}
	if q.Sort != nil {
		if *q.Sort == chat.SortRelevance {
			return nil, chat.ErrInvalidOperation
		}
		sq.Sort = *q.Sort
	}
	if q.Before != nil {
		sq.Before = *q.Before
	}
	if q.After != nil {
		sq.After = *q.After
	}
	if q.Nearby != nil {
		sq.Nearby = *q.Nearby
	}
	msgs, err := a.store.FetchMessages(ctx, sq)
	if err != nil {
		return nil, dbError("fetch messages", err)
	}
	return a.bulkMessages(ctx, c, acc, msgs, q.IncludeUsers)
}

// SearchMessages finds messages of a channel by words or pinned state
// (POST /channels/{target}/search); it needs ReadMessageHistory and is
// not open to bots.
func (a *App) SearchMessages(ctx context.Context, c *Caller, channel chat.ID, q chat.MessageSearch) (*chat.BulkMessages, error) {
	if c.IsBot() {
		return nil, chat.ErrIsBot
	}
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	if err := perm.Require(acc.perms, perm.ReadMessageHistory); err != nil {
		return nil, err
	}
	sq := store.MessageSearch{Channel: acc.ch.ID, Limit: chat.PageSize(q.Limit), Sort: store.SortRelevance, Viewer: c.ID()}
	if q.Query != nil {
		sq.Query = *q.Query
	}
	sq.Pinned = q.Pinned != nil && *q.Pinned
	if q.Sort != nil {
		sq.Sort = *q.Sort
	}
	if q.Before != nil {
		sq.Before = *q.Before
	}
	if q.After != nil {
		sq.After = *q.After
	}
	msgs, err := a.store.SearchMessages(ctx, sq)
	if err != nil {
		return nil, dbError("search messages", err)
	}
	return a.bulkMessages(ctx, c, acc, msgs, q.IncludeUsers != nil && *q.IncludeUsers)
}

// bulkMessages wraps a page of messages, adding the users they involve
// (authors and the people system messages name) and, in server channels,
// those users' memberships when asked for.
func (a *App) bulkMessages(ctx context.Context, c *Caller, acc *channelAccess, msgs []*chat.Message, withUsers bool) (*chat.BulkMessages, error) {
	out := &chat.BulkMessages{Messages: msgs, WithUsers: withUsers}
	if out.Messages == nil {
		out.Messages = []*chat.Message{}
	}
	if !withUsers {
		return out, nil
	}
	var ids []chat.ID
	seen := map[chat.ID]bool{chat.SystemID: true, "": true}
	add := func(id chat.ID) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, m := range msgs {
		add(m.Author)
		if s := m.System; s != nil {
			add(s.ID)
			add(s.By)
			add(s.From)
			add(s.To)
		}
	}
	users, err := a.store.FetchUsers(ctx, ids)
	if err != nil {
		return nil, dbError("fetch users", err)
	}
	out.Users = make([]*chat.User, 0, len(users))
	for _, u := range users {
		v, err := a.viewUser(ctx, c.User, u)
		if err != nil {
			return nil, err
		}
		out.Users = append(out.Users, v)
	}
	if acc.server != nil {
		out.Members = []*chat.Member{}
		for _, u := range users {
			mem, err := a.store.FetchMember(ctx, acc.server.ID, u.ID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, dbError("fetch member", err)
			}
			out.Members = append(out.Members, mem)
		}
	}
	return out, nil
}

// EditMessage changes the content or embeds of the caller's own message
// (PATCH /channels/{target}/messages/{msg}). Embeds given replace the
// message's embeds; without them only its text embeds are kept.
func (a *App) EditMessage(ctx context.Context, c *Caller, channel, id chat.ID, data chat.MessageEdit) (*chat.Message, error) {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	if err := perm.Require(acc.perms, perm.SendMessage); err != nil {
		return nil, err
	}
	if data.Embeds != nil && len(*data.Embeds) > 0 {
		if err := perm.Require(acc.perms, perm.SendEmbeds); err != nil {
			return nil, err
		}
	}
	if data.Content != nil {
		if err := a.checkExternalEmojis(ctx, acc, contentEmojis(*data.Content)); err != nil {
			return nil, err
		}
	}
	m, err := a.reviseMessage(ctx, acc.ch.ID, id, c.ID(), a.settings.Limits.For(c.ID(), a.now()), data)
	if err == nil && data.Content != nil && acc.perms.Has(perm.SendEmbeds) {
		a.queueLinkEmbeds(ctx, m)
	}
	return m, err
}

// reviseMessage applies an edit to a message of channel that author
// sent (else CannotEditMessage) and publishes MessageUpdate.
func (a *App) reviseMessage(ctx context.Context, channel, id, author chat.ID, limits UserLimits, data chat.MessageEdit) (*chat.Message, error) {
	var m *chat.Message
	changes := chat.Partial{}
	err := a.store.InTx(ctx, func(tx store.Store) error {
		var err error
		if m, err = visibleMessage(ctx, tx, channel, id, author); err != nil {
			return err
		}
		if m.Author != author {
			return chat.ErrCannotEditMessage
		}
		content := m.Content
		if data.Content != nil {
			content = data.Content
		}
		var sendable []chat.SendableEmbed
		if data.Embeds != nil {
			sendable = *data.Embeds
		}
		size := contentSize(content, sendable)
		if data.Embeds == nil {
			for _, e := range m.Embeds {
				if e.Type == "Text" && e.Description != nil {
					size += len(*e.Description)
				}
			}
		}
		if size > limits.MessageLength {
			return chat.ErrPayloadTooLarge
		}
		embeds := []chat.Embed{}
		var dropped []string
		for _, e := range m.Embeds {
			switch {
			case e.Type == "Text" && data.Embeds == nil:
				embeds = append(embeds, e)
			case e.Media != nil:
				dropped = append(dropped, e.Media.ID)
			}
		}
		if data.Embeds != nil {
			if embeds, err = textEmbeds(ctx, tx, m.ID, sendable); err != nil {
				return err
			}
		}
		if err := releaseFiles(ctx, tx, dropped); err != nil {
			return err
		}
		edited := chat.TimeOf(a.now())
		m.Edited = &edited
		m.Content = content
		m.Embeds = embeds
		changes["edited"] = edited
		if data.Content != nil {
			changes["content"] = *data.Content
		}
		changes["embeds"] = embeds
		return dbError("update message", tx.UpdateMessage(ctx, m))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.MessageUpdateEvent{Type: chat.EvMessageUpdate, ID: m.ID,
		Channel: m.Channel, Data: changes, Clear: []string{}}, messageTopic(m))
	if len(m.Embeds) == 0 {
		m.Embeds = nil
	}
	return m, nil
}

// DeleteMessage deletes a message (DELETE /channels/{target}/messages/{msg}):
// the caller's own, or anyone's with ManageMessages. Its uploads are
// released.
func (a *App) DeleteMessage(ctx context.Context, c *Caller, channel, id chat.ID) error {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	// The newest message may still wait in the last-message coalescer.
	pending := a.sends.lastMessages.Drop(acc.ch.ID, id)
	var newLast *chat.ID
	recomputed := false
	topic := event.Of(acc.ch.ID)
	err = a.store.InTx(ctx, func(tx store.Store) error {
		m, err := visibleMessage(ctx, tx, acc.ch.ID, id, c.ID())
		if err != nil {
			return err
		}
		topic = messageTopic(m)
		if m.Author != c.ID() {
			if err := perm.Require(acc.perms, perm.ManageMessages); err != nil {
				return err
			}
			if acc.server != nil {
				if err := a.audit(ctx, tx, c, acc.server.ID, chat.AuditAction{Type: chat.AuditMessageDelete,
					Author: m.Author, Channel: acc.ch.ID}); err != nil {
					return err
				}
			}
		}
		if err := tx.DeleteMessage(ctx, m.ID); err != nil {
			return notFound(err)
		}
		if err := releaseFiles(ctx, tx, messageFiles(m)); err != nil {
			return err
		}
		newLast, recomputed, err = recomputeLastMessage(ctx, tx, acc.ch.ID, m.ID, pending)
		return err
	})
	if err != nil {
		if pending {
			a.sends.lastMessages.Record(acc.ch.ID, id)
		}
		return err
	}
	if recomputed && newLast != nil {
		// As the reference since 0.15.2 (#899): clients re-read the
		// channel's last message, or could not acknowledge it.
		a.publish(ctx, chat.ChannelUpdateEvent{Type: chat.EvChannelUpdate, ID: acc.ch.ID,
			Data: chat.Partial{"last_message_id": *newLast}, Clear: []string{}}, event.Of(acc.ch.ID))
	}
	a.publish(ctx, chat.MessageDeleteEvent{Type: chat.EvMessageDelete, ID: id, Channel: acc.ch.ID}, topic)
	return nil
}

// recomputeLastMessage points a channel whose last message was deleted
// (or, with pending, whose newest message had not been recorded yet) at
// its newest remaining message, or at none. It reports the new id and
// whether the deleted message was the channel's last.
func recomputeLastMessage(ctx context.Context, tx store.Store, channel, deleted chat.ID, pending bool) (*chat.ID, bool, error) {
	ch, err := tx.FetchChannel(ctx, channel)
	if err != nil {
		return nil, false, dbError("fetch channel", err)
	}
	if !pending && (ch.LastMessageID == nil || *ch.LastMessageID != deleted) {
		return nil, false, nil
	}
	latest, err := tx.FetchMessages(ctx, store.MessageQuery{Channel: channel, Limit: 1, Sort: store.SortLatest})
	if err != nil {
		return nil, false, dbError("fetch messages", err)
	}
	var last *chat.ID
	if len(latest) > 0 {
		last = &latest[0].ID
	}
	if (last == nil) == (ch.LastMessageID == nil) && (last == nil || *last == *ch.LastMessageID) {
		return last, true, nil // the stored one was behind the deleted message
	}
	ch.LastMessageID = last
	if err := tx.UpdateChannel(ctx, ch); err != nil {
		return nil, false, dbError("update channel", err)
	}
	return last, true, nil
}

// bulkDeleteAge is how old a message may be and still be bulk deleted.
const bulkDeleteAge = 7 * 24 * time.Hour

// BulkDeleteMessages deletes up to 100 messages younger than a week
// (DELETE /channels/{target}/messages/bulk); it needs ManageMessages. Ids
// that are not messages of the channel are ignored.
func (a *App) BulkDeleteMessages(ctx context.Context, c *Caller, channel chat.ID, ids []chat.ID) error {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	if err := perm.Require(acc.perms, perm.ManageMessages); err != nil {
		return err
	}
	now := a.now()
	for _, id := range ids {
		t := id.Time()
		if t.IsZero() || now.Sub(t) > bulkDeleteAge {
			return chat.ErrInvalidOperation
		}
	}
	var deleted []chat.ID
	var private []*chat.Message
	err = a.store.InTx(ctx, func(tx store.Store) error {
		found, err := tx.FetchMessagesByID(ctx, acc.ch.ID, ids)
		if err != nil {
			return dbError("fetch messages", err)
		}
		// Ephemeral messages the caller cannot see are left alone; those
		// it can are deleted and told to their user alone.
		var msgs []*chat.Message
		ids = ids[:0]
		for _, m := range found {
			if seenBy(m, c.ID()) {
				msgs = append(msgs, m)
				ids = append(ids, m.ID)
			}
			if m.Ephemeral != nil && seenBy(m, c.ID()) {
				private = append(private, m)
			}
		}
		if deleted, err = tx.DeleteMessages(ctx, acc.ch.ID, ids); err != nil {
			return dbError("delete messages", err)
		}
		if n := len(deleted); n > 0 && acc.server != nil {
			if err := a.audit(ctx, tx, c, acc.server.ID, chat.AuditAction{Type: chat.AuditMessageBulkDelete,
				Channel: acc.ch.ID, Count: &n}); err != nil {
				return err
			}
		}
		var files []string
		for _, m := range msgs {
			files = append(files, messageFiles(m)...)
		}
		return releaseFiles(ctx, tx, files)
	})
	if err != nil {
		return err
	}
	for _, m := range private {
		if i := slices.Index(deleted, m.ID); i >= 0 {
			deleted = slices.Delete(deleted, i, i+1)
			a.publish(ctx, chat.MessageDeleteEvent{Type: chat.EvMessageDelete, ID: m.ID, Channel: acc.ch.ID},
				messageTopic(m))
		}
	}
	if len(deleted) > 0 {
		a.publish(ctx, chat.BulkMessageDeleteEvent{Type: chat.EvBulkMessageDelete,
			Channel: acc.ch.ID, IDs: deleted}, event.Of(acc.ch.ID))
	}
	return nil
}

// PinMessage pins a message (POST /channels/{target}/messages/{msg}/pin)
// and posts a message_pinned system message. Outside direct messages it
// needs ManageMessages.
func (a *App) PinMessage(ctx context.Context, c *Caller, channel, id chat.ID) error {
	return a.setPinned(ctx, c, channel, id, true)
}

// UnpinMessage unpins a message (DELETE /channels/{target}/messages/{msg}/pin)
// and posts a message_unpinned system message.
func (a *App) UnpinMessage(ctx context.Context, c *Caller, channel, id chat.ID) error {
	return a.setPinned(ctx, c, channel, id, false)
}

func (a *App) setPinned(ctx context.Context, c *Caller, channel, id chat.ID, pin bool) error {
	acc, err := a.openChannel(ctx, c.User, channel)
	if err != nil {
		return err
	}
	if t := acc.ch.ChannelType; t != chat.ChannelDirectMessage && t != chat.ChannelSavedMessages {
		if err := perm.Require(acc.perms, perm.ManageMessages); err != nil {
			return err
		}
	}
	err = a.store.InTx(ctx, func(tx store.Store) error {
		m, err := visibleMessage(ctx, tx, acc.ch.ID, id, c.ID())
		if err != nil {
			return err
		}
		if m.Ephemeral != nil { // its pin notice would tell the channel
			return chat.ErrInvalidOperation
		}
		pinned := m.Pinned != nil && *m.Pinned
		switch {
		case pin && pinned:
			return chat.ErrAlreadyPinned
		case !pin && !pinned:
			return chat.ErrNotPinned
		}
		if pin {
			m.Pinned = &pin
		} else {
			m.Pinned = nil
		}
		if acc.server != nil {
			typ := chat.AuditMessagePin
			if !pin {
				typ = chat.AuditMessageUnpin
			}
			if err := a.audit(ctx, tx, c, acc.server.ID, chat.AuditAction{Type: typ, Message: id,
				Channel: acc.ch.ID}); err != nil {
				return err
			}
		}
		return dbError("update message", tx.UpdateMessage(ctx, m))
	})
	if err != nil {
		return err
	}
	ev := chat.MessageUpdateEvent{Type: chat.EvMessageUpdate, ID: id, Channel: acc.ch.ID,
		Data: chat.Partial{}, Clear: []string{}}
	sys := chat.SystemMessage{Type: "message_pinned", ID: id, By: c.ID()}
	if pin {
		ev.Data["pinned"] = true
	} else {
		ev.Clear = []string{"Pinned"}
		sys.Type = "message_unpinned"
	}
	a.publish(ctx, ev, event.Of(acc.ch.ID))
	_, err = a.systemMessage(ctx, acc.ch.ID, sys)
	return err
}

// AppendEmbeds adds embeds to a stored message and tells the channel with
// MessageAppend. Link previews use it once they resolve.
func (a *App) AppendEmbeds(ctx context.Context, channel, message chat.ID, embeds []chat.Embed) error {
	return a.appendEmbeds(ctx, channel, message, nil, embeds)
}
