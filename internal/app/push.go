package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// Pusher queues Web Push notifications; the server's is backed by the
// push package. Push must return at once: delivery happens later, off
// the path of the request that caused it.
type Pusher interface {
	// Push queues payload for the subscription of session.
	Push(session chat.ID, sub chat.WebPushSubscription, payload []byte)
	// Valid reports whether sub may be subscribed: an endpoint the
	// server may post to and keys a payload can be encrypted for, or a
	// mobile platform ("fcm", "apn") with a device token.
	Valid(sub chat.WebPushSubscription) bool
	// Unconfigured notes a subscription of endpoint's kind for which
	// the instance has no credentials (said once in the log).
	Unconfigured(endpoint string)
}

// pushBodyLength bounds the text of a notification; push services take
// about 4 KiB of encrypted payload.
const pushBodyLength = 500

// pushState is the app's push notifications: the queue they go to and
// the look-ups (recipients, subscriptions) running in the background.
type pushState struct {
	pusher   Pusher         // nil when push is off
	lookups  sync.WaitGroup // notifications being looked up
	noMobile sync.Once      // says once that mobile push is not configured
}

// close waits for the look-ups in flight.
func (p *pushState) close() { p.lookups.Wait() }

// SubscribePush handles POST /push/subscribe: the session's Web Push
// subscription is stored, replacing the one it had.
func (a *App) SubscribePush(ctx context.Context, c *Caller, sub chat.WebPushSubscription) error {
	if c.IsBot() || c.Session == nil {
		return chat.ErrIsBot
	}
	if chat.IsMobilePush(sub.Endpoint) {
		// The official apps register {endpoint: "fcm"|"apn", p256dh: "",
		// auth: <device token>}. Kept even without the platform's
		// credentials, so they work once the operator adds them.
		if sub.Auth == "" || len(sub.Auth) > 4096 || len(sub.P256DH) > 200 {
			return chat.ErrInvalidProperty
		}
		if a.push.pusher == nil {
			a.push.noMobile.Do(func() {
				a.log.WarnContext(ctx, "mobile push subscriptions are stored but not delivered: [push.fcm] and [push.apn] are not configured")
			})
		} else {
			a.push.pusher.Unconfigured(sub.Endpoint)
		}
		return a.setSubscription(ctx, c.Session.ID, "", &sub)
	}
	if a.push.pusher == nil {
		return chat.ErrFeatureDisabled("features.push")
	}
	if len(sub.P256DH) > 200 || len(sub.Auth) > 200 || !a.push.pusher.Valid(sub) {
		return chat.ErrInvalidProperty
	}
	return a.setSubscription(ctx, c.Session.ID, "", &sub)
}

// UnsubscribePush handles POST /push/unsubscribe: the session's
// subscription, if any, is removed.
func (a *App) UnsubscribePush(ctx context.Context, c *Caller) error {
	if c.IsBot() || c.Session == nil {
		return chat.ErrIsBot
	}
	return a.setSubscription(ctx, c.Session.ID, "", nil)
}

// RemovePushSubscription forgets the subscription of session when its
// endpoint is still endpoint: the push service said it expired.
func (a *App) RemovePushSubscription(ctx context.Context, session chat.ID, endpoint string) error {
	return a.setSubscription(ctx, session, endpoint, nil)
}

// setSubscription replaces a session's subscription; with onlyEndpoint
// set, only when the current one has that endpoint.
func (a *App) setSubscription(ctx context.Context, session chat.ID, onlyEndpoint string, sub *chat.WebPushSubscription) error {
	err := a.store.InTx(ctx, func(tx store.Store) error {
		se, err := tx.FetchSession(ctx, session)
		if errors.Is(err, store.ErrNotFound) && onlyEndpoint != "" {
			return nil
		}
		if err != nil {
			return dbError("fetch session", err)
		}
		if onlyEndpoint != "" && (se.Subscription == nil || se.Subscription.Endpoint != onlyEndpoint) {
			return nil
		}
		if se.Subscription == nil && sub == nil {
			return nil
		}
		se.Subscription = sub
		return dbError("update session", tx.UpdateSession(ctx, se))
	})
	return err
}

// notify sends n to each of users who has no connected session, on
// every session subscription they have. It runs after the change was
// stored and published; failures are logged.
func (a *App) notify(ctx context.Context, users []chat.ID, n chat.PushNotification, mobile *chat.MobilePush) {
	if a.push.pusher == nil || len(users) == 0 {
		return
	}
	payload, err := json.Marshal(n)
	if err != nil {
		a.log.ErrorContext(ctx, "encode notification", "err", err)
		return
	}
	var away []chat.ID
	for _, u := range users {
		if !a.online.Online(u) {
			away = append(away, u)
		}
	}
	if len(away) == 0 {
		return
	}
	// Looking up the sessions is left to a goroutine so that a message to
	// a large group is not held up; Close waits for it.
	a.push.lookups.Add(1)
	go func() {
		defer a.push.lookups.Done()
		a.pushTo(context.WithoutCancel(ctx), away, payload, mobile)
	}()
}

// pushTo queues payload for every Web Push subscription of users'
// sessions, and mobile for their mobile apps' subscriptions; for Apple's,
// with the user's unread mention count as the badge.
func (a *App) pushTo(ctx context.Context, users []chat.ID, payload []byte, mobile *chat.MobilePush) {
	plain, err := json.Marshal(mobile)
	if err != nil {
		a.log.ErrorContext(ctx, "encode mobile notification", "err", err)
		return
	}
	for _, u := range users {
		sessions, err := a.store.FetchSessions(ctx, u)
		if err != nil {
			a.log.ErrorContext(ctx, "fetch sessions for push", "user", u, "err", err)
			continue
		}
		var badged []byte // mobile with u's badge, made for the first apn session
		for _, se := range sessions {
			switch {
			case se.Subscription == nil:
			case se.Subscription.Endpoint == chat.PushEndpointAPN:
				if badged == nil {
					badged = a.withBadge(ctx, u, mobile, plain)
				}
				a.push.pusher.Push(se.ID, *se.Subscription, badged)
			case chat.IsMobilePush(se.Subscription.Endpoint):
				a.push.pusher.Push(se.ID, *se.Subscription, plain)
			default:
				a.push.pusher.Push(se.ID, *se.Subscription, payload)
			}
		}
	}
}

// withBadge is mobile encoded with user's unread mention count as its
// badge, or plain (no badge) when the count cannot be read.
func (a *App) withBadge(ctx context.Context, user chat.ID, mobile *chat.MobilePush, plain []byte) []byte {
	count, err := a.unreadMentions(ctx, user)
	if err != nil {
		a.log.ErrorContext(ctx, "count unread mentions for push", "user", user, "err", err)
		return plain
	}
	n := *mobile
	n.Badge = &count
	b, err := json.Marshal(&n)
	if err != nil {
		a.log.ErrorContext(ctx, "encode mobile notification", "err", err)
		return plain
	}
	return b
}

// unreadMentions counts the messages mentioning user that user has not
// read, over every channel: the app icon's badge.
func (a *App) unreadMentions(ctx context.Context, user chat.ID) (int, error) {
	list, err := a.store.FetchUnreads(ctx, user)
	if err != nil {
		return 0, err
	}
	count := 0
	for _, u := range list {
		count += len(u.Mentions)
	}
	return count, nil
}

// pushBadge sends user's Apple devices the badge update that follows an
// acknowledgement, as the reference's push daemon does: the unread
// mention count, to every apn subscription, only while some mention is
// left unread (a count of zero is not sent). It runs off the request.
func (a *App) pushBadge(ctx context.Context, user chat.ID) {
	if a.push.pusher == nil {
		return
	}
	a.push.lookups.Add(1)
	go func() {
		defer a.push.lookups.Done()
		ctx := context.WithoutCancel(ctx)
		sessions, err := a.store.FetchSessions(ctx, user)
		if err != nil {
			a.log.ErrorContext(ctx, "fetch sessions for badge", "user", user, "err", err)
			return
		}
		var apple []*chat.Session
		for _, se := range sessions {
			if se.Subscription != nil && se.Subscription.Endpoint == chat.PushEndpointAPN {
				apple = append(apple, se)
			}
		}
		if len(apple) == 0 {
			return
		}
		count, err := a.unreadMentions(ctx, user)
		if err != nil {
			a.log.ErrorContext(ctx, "count unread mentions for badge", "user", user, "err", err)
			return
		}
		if count == 0 {
			return
		}
		b, err := json.Marshal(&chat.MobilePush{Type: chat.PushBadge, Badge: &count})
		if err != nil {
			a.log.ErrorContext(ctx, "encode badge update", "err", err)
			return
		}
		for _, se := range apple {
			a.push.pusher.Push(se.ID, *se.Subscription, b)
		}
	}()
}

// pushIcon is the address of a user's avatar for a notification.
func (a *App) pushIcon(u *chat.User) string {
	if u.Avatar != nil && a.settings.FilesURL != "" {
		return fmt.Sprintf("%s/avatars/%s", a.settings.FilesURL, u.Avatar.ID)
	}
	return ""
}

// pushName is how a user is named in a notification.
func pushName(u *chat.User) string {
	if u.DisplayName != nil && *u.DisplayName != "" {
		return *u.DisplayName
	}
	return u.Username
}

// notifyMessage pushes a new message to whom it concerns: every other
// recipient of a direct message or group, and in server channels the
// users it mentions. Messages sent with SuppressNotifications push
// nothing.
func (a *App) notifyMessage(ctx context.Context, ch *chat.Channel, m *chat.Message, from sender, mentions []chat.ID) {
	if a.push.pusher == nil || m.Flags&chat.MessageFlagSuppressNotifications != 0 {
		return
	}
	var to []chat.ID
	switch {
	case m.Ephemeral != nil: // its user always, as in reference pull request #929
		to = []chat.ID{*m.Ephemeral}
	case ch.ChannelType == chat.ChannelDirectMessage, ch.ChannelType == chat.ChannelGroup:
		to = ch.Recipients
	case ch.ChannelType == chat.ChannelText, ch.ChannelType == chat.ChannelVoice:
		to = mentions
	}
	var users []chat.ID
	for _, u := range to {
		if u != from.id {
			users = append(users, u)
		}
	}
	if len(users) == 0 {
		return
	}
	body := ""
	if m.Content != nil {
		body = *m.Content
	}
	if r := []rune(body); len(r) > pushBodyLength {
		body = string(r[:pushBodyLength]) + "…"
	}
	if body == "" && len(m.Attachments) > 0 {
		body = fmt.Sprintf("%d attachment(s)", len(m.Attachments))
	}
	var author, icon string
	switch {
	case from.user != nil:
		author, icon = pushName(from.user), a.pushIcon(from.user)
	case from.webhook != nil:
		author = from.webhook.Name
		if from.webhook.Avatar != nil && a.settings.FilesURL != "" {
			icon = fmt.Sprintf("%s/avatars/%s", a.settings.FilesURL, *from.webhook.Avatar)
		}
	}
	n := chat.PushNotification{Type: "Message", Author: author, Icon: icon, Body: body,
		Tag: string(ch.ID), Timestamp: m.ID.Time().UnixMilli(), Channel: ch.ID, Message: m.ID}
	if ch.Server != "" {
		n.URL = fmt.Sprintf("%s/server/%s/channel/%s/%s", a.settings.AppURL, ch.Server, ch.ID, m.ID)
	} else {
		n.URL = fmt.Sprintf("%s/channel/%s/%s", a.settings.AppURL, ch.ID, m.ID)
	}
	for _, f := range m.Attachments {
		if f.Metadata.Type == "Image" && a.settings.FilesURL != "" {
			n.Image = fmt.Sprintf("%s/attachments/%s", a.settings.FilesURL, f.ID)
			break
		}
	}
	mobile := &chat.MobilePush{Type: chat.PushMessage, Message: m, ChannelID: ch.ID, ChannelName: ch.Name,
		ChannelType: ch.ChannelType, AuthorID: m.Author, AuthorName: author, Icon: icon, Body: body, URL: n.URL}
	a.notify(ctx, users, n, mobile)
}

// notifyFriendRequest pushes a friend request, or its acceptance, to to.
func (a *App) notifyFriendRequest(ctx context.Context, from *chat.User, to chat.ID, accepted bool) {
	if a.push.pusher == nil {
		return
	}
	body := "sent you a friend request"
	if accepted {
		body = "accepted your friend request"
	}
	kind := chat.PushFRReceive
	if accepted {
		kind = chat.PushFRAccept
	}
	name := from.Username + "#" + from.Discriminator
	if from.DisplayName != nil && *from.DisplayName != "" {
		name = *from.DisplayName
	}
	a.notify(ctx, []chat.ID{to}, chat.PushNotification{Type: "FriendRequest", Author: pushName(from), Icon: a.pushIcon(from),
		Body: body, Tag: "friend:" + string(from.ID), Timestamp: a.now().UnixMilli(), URL: a.settings.AppURL + "/friends"},
		&chat.MobilePush{Type: kind, UserID: from.ID, Username: name})
}

// notifyCall pushes a call that starts in a direct message or group to
// its other recipients who are away.
func (a *App) notifyCall(ctx context.Context, ch *chat.Channel, initiator chat.ID) {
	if a.push.pusher == nil {
		return
	}
	from, err := a.store.FetchUser(ctx, initiator)
	if err != nil {
		a.log.ErrorContext(ctx, "fetch caller for push", "user", initiator, "err", err)
		return
	}
	var to []chat.ID
	for _, r := range ch.Recipients {
		if r != initiator {
			to = append(to, r)
		}
	}
	now := a.now()
	a.notify(ctx, to, chat.PushNotification{Type: "Call", Author: pushName(from), Icon: a.pushIcon(from),
		Body: "is calling you", Tag: "call:" + string(ch.ID), Timestamp: now.UnixMilli(),
		URL: fmt.Sprintf("%s/channel/%s", a.settings.AppURL, ch.ID), Channel: ch.ID},
		&chat.MobilePush{Type: chat.PushDMCall, InitiatorID: initiator, ChannelID: ch.ID,
			StartedAt: now.UTC().Format(time.RFC3339Nano), RingSeconds: int(voiceRingTime / time.Second)})
}
