package app

import (
	"context"
	"crypto/subtle"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/github"
	"ermine/internal/perm"
	"ermine/internal/store"
)

// fileUseWebhookAvatar records in an upload's UsedFor that a webhook
// shows it as its avatar.
const fileUseWebhookAvatar = "webhook_avatar"

// webhookTokenLength is the length of a webhook's secret token.
const webhookTokenLength = 64

// webhooksOn refuses every webhook use case when the instance turned
// webhooks off ([webhooks] enabled = false).
func (a *App) webhooksOn() error {
	if a.settings.WebhooksOff {
		return chat.ErrFeatureDisabled("webhooks")
	}
	return nil
}

// CreateWebhook adds a webhook to a text channel or group
// (POST /channels/{target}/webhooks); it needs ManageWebhooks. Tokens
// are shown only to those who may manage the webhook (its creation, the
// channel's list, edits, the token routes), never in events nor in the
// fetch open to anyone who sees the channel.
func (a *App) CreateWebhook(ctx context.Context, c *Caller, channel chat.ID, data chat.WebhookCreate) (*chat.Webhook, error) {
	if err := a.webhooksOn(); err != nil {
		return nil, err
	}
	ch, held, err := a.requireChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	if err := perm.Require(held, perm.ManageWebhooks); err != nil {
		return nil, err
	}
	if ch.ChannelType != chat.ChannelText && ch.ChannelType != chat.ChannelGroup {
		return nil, chat.ErrInvalidOperation
	}
	token := chat.NewToken(webhookTokenLength)
	w := &chat.Webhook{ID: chat.NewID(), Name: data.Name, CreatorID: c.ID(), ChannelID: ch.ID,
		Permissions: uint64(perm.DefaultWebhook), Token: &token}
	err = a.store.InTx(ctx, func(tx store.Store) error {
		if data.Avatar != nil {
			f, err := useFile(ctx, tx, *data.Avatar, chat.TagAvatars, fileUseWebhookAvatar, w.ID)
			if err != nil {
				return err
			}
			w.Avatar = f
		}
		if ch.IsServerChannel() {
			if err := a.audit(ctx, tx, c, ch.Server, chat.AuditAction{Type: chat.AuditWebhookCreate,
				Webhook: w.ID, Name: named(w.Name), Channel: ch.ID}); err != nil {
				return err
			}
		}
		return dbError("insert webhook", tx.InsertWebhook(ctx, w))
	})
	if err != nil {
		return nil, err
	}
	a.publish(ctx, chat.WebhookCreateEvent{Type: chat.EvWebhookCreate, Webhook: w.WithoutToken()},
		event.Of(ch.ID))
	return w, nil
}

// FetchChannelWebhooks lists a channel's webhooks with their tokens
// (GET /channels/{channel_id}/webhooks); it needs ManageWebhooks, which
// already allows everything a token does. The client libraries edit and
// delete a listed webhook through its token routes, so they need it.
func (a *App) FetchChannelWebhooks(ctx context.Context, c *Caller, channel chat.ID) ([]*chat.Webhook, error) {
	if err := a.webhooksOn(); err != nil {
		return nil, err
	}
	ch, held, err := a.requireChannel(ctx, c.User, channel)
	if err != nil {
		return nil, err
	}
	if err := perm.Require(held, perm.ManageWebhooks); err != nil {
		return nil, err
	}
	list, err := a.store.FetchChannelWebhooks(ctx, ch.ID)
	if err != nil {
		return nil, dbError("fetch webhooks", err)
	}
	if list == nil {
		list = []*chat.Webhook{}
	}
	return list, nil
}

// sessionWebhook returns a webhook in a channel the caller can see
// (else NotFound) with what the caller holds there.
func (a *App) sessionWebhook(ctx context.Context, c *Caller, id chat.ID) (*chat.Webhook, perm.Set, error) {
	if err := a.webhooksOn(); err != nil {
		return nil, 0, err
	}
	w, err := a.store.FetchWebhook(ctx, id)
	if err != nil {
		return nil, 0, notFound(err)
	}
	_, held, err := a.requireChannel(ctx, c.User, w.ChannelID)
	if err != nil {
		return nil, 0, err
	}
	return w, held, nil
}

// tokenWebhook returns the webhook id if token is its token, compared in
// constant time; a wrong token is NotAuthenticated, an unknown webhook
// NotFound.
func (a *App) tokenWebhook(ctx context.Context, id chat.ID, token string) (*chat.Webhook, error) {
	if err := a.webhooksOn(); err != nil {
		return nil, err
	}
	w, err := a.store.FetchWebhook(ctx, id)
	if err != nil {
		return nil, notFound(err)
	}
	if w.Token == nil || subtle.ConstantTimeCompare([]byte(*w.Token), []byte(token)) != 1 {
		return nil, chat.ErrNotAuthenticated
	}
	return w, nil
}

// FetchWebhook returns a webhook without its token to someone who can
// see its channel (GET /webhooks/{webhook_id}).
func (a *App) FetchWebhook(ctx context.Context, c *Caller, id chat.ID) (*chat.ResponseWebhook, error) {
	w, _, err := a.sessionWebhook(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return w.Response(), nil
}

// FetchWebhookByToken returns the whole webhook, token included, to its
// token holder (GET /webhooks/{webhook_id}/{token}).
func (a *App) FetchWebhookByToken(ctx context.Context, id chat.ID, token string) (*chat.Webhook, error) {
	return a.tokenWebhook(ctx, id, token)
}

// EditWebhook changes a webhook's name, avatar or permissions
// (PATCH /webhooks/{webhook_id}); it needs ManageWebhooks, and the
// permissions given may not exceed the editor's own in the channel
// (CannotGiveMissingPermissions).
func (a *App) EditWebhook(ctx context.Context, c *Caller, id chat.ID, data chat.WebhookEdit) (*chat.Webhook, error) {
	w, held, err := a.sessionWebhook(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if err := perm.Require(held, perm.ManageWebhooks); err != nil {
		return nil, err
	}
	return a.editWebhook(ctx, w.ID, held, data, a.webhookAudit(ctx, c))
}

// webhookAudit returns what records a change a member makes to a
// webhook of a server channel in that server's audit log. Token holders
// act as no member, so their changes go unrecorded (nil).
func (a *App) webhookAudit(ctx context.Context, c *Caller) func(store.Store, *chat.Webhook, chat.AuditAction) error {
	return func(tx store.Store, w *chat.Webhook, action chat.AuditAction) error {
		ch, err := tx.FetchChannel(ctx, w.ChannelID)
		if err != nil {
			return notFound(err)
		}
		if !ch.IsServerChannel() {
			return nil
		}
		action.Webhook, action.Channel = w.ID, w.ChannelID
		return a.audit(ctx, tx, c, ch.Server, action)
	}
}

// EditWebhookByToken is EditWebhook for the token holder
// (PATCH /webhooks/{webhook_id}/{token}). A token may take permissions
// away from its webhook but never add any.
func (a *App) EditWebhookByToken(ctx context.Context, id chat.ID, token string, data chat.WebhookEdit) (*chat.Webhook, error) {
	w, err := a.tokenWebhook(ctx, id, token)
	if err != nil {
		return nil, err
	}
	return a.editWebhook(ctx, w.ID, perm.Set(w.Permissions), data, nil)
}

// editWebhook applies an edit whose permissions must lie within
// grantable, and publishes WebhookUpdate when something changed. The
// answer keeps the token, as the client libraries replace their copy of
// the webhook with it and then delete through the token.
func (a *App) editWebhook(ctx context.Context, id chat.ID, grantable perm.Set, data chat.WebhookEdit,
	audit func(store.Store, *chat.Webhook, chat.AuditAction) error) (*chat.Webhook, error) {
	var w *chat.Webhook
	changes := chat.Partial{}
	remove := []string{}
	err := a.store.InTx(ctx, func(tx store.Store) error {
		var err error
		if w, err = tx.FetchWebhook(ctx, id); err != nil {
			return notFound(err)
		}
		if data.Permissions != nil {
			if perm.Set(*data.Permissions)&^grantable != 0 {
				return chat.ErrCannotGiveMissingPermissions
			}
			w.Permissions = *data.Permissions
			changes["permissions"] = w.Permissions
		}
		for _, f := range data.Remove {
			if f == chat.WebhookFieldAvatar && data.Avatar == nil {
				if err := dropFile(ctx, tx, w.Avatar); err != nil {
					return err
				}
				w.Avatar = nil
				remove = append(remove, f)
			}
		}
		if data.Avatar != nil {
			f, err := replaceFile(ctx, tx, *data.Avatar, chat.TagAvatars, fileUseWebhookAvatar, w.ID, w.Avatar)
			if err != nil {
				return err
			}
			w.Avatar = f
			changes["avatar"] = f
		}
		if data.Name != nil {
			w.Name = *data.Name
			changes["name"] = w.Name
		}
		if len(changes) == 0 && len(remove) == 0 {
			return nil
		}
		if audit != nil {
			if err := audit(tx, w, chat.AuditAction{Type: chat.AuditWebhookEdit, Remove: remove,
				Partial: edited(changes)}); err != nil {
				return err
			}
		}
		return dbError("update webhook", tx.UpdateWebhook(ctx, w))
	})
	if err != nil {
		return nil, err
	}
	if len(changes) > 0 || len(remove) > 0 {
		a.publish(ctx, chat.WebhookUpdateEvent{Type: chat.EvWebhookUpdate, ID: w.ID,
			Data: changes, Remove: remove}, event.Of(w.ChannelID))
	}
	return w, nil
}

// DeleteWebhook removes a webhook (DELETE /webhooks/{webhook_id}); it
// needs ManageWebhooks. Messages it sent stay.
func (a *App) DeleteWebhook(ctx context.Context, c *Caller, id chat.ID) error {
	w, held, err := a.sessionWebhook(ctx, c, id)
	if err != nil {
		return err
	}
	if err := perm.Require(held, perm.ManageWebhooks); err != nil {
		return err
	}
	return a.deleteWebhook(ctx, w, a.webhookAudit(ctx, c))
}

// DeleteWebhookByToken removes a webhook for its token holder
// (DELETE /webhooks/{webhook_id}/{token}).
func (a *App) DeleteWebhookByToken(ctx context.Context, id chat.ID, token string) error {
	w, err := a.tokenWebhook(ctx, id, token)
	if err != nil {
		return err
	}
	return a.deleteWebhook(ctx, w, nil)
}

func (a *App) deleteWebhook(ctx context.Context, w *chat.Webhook, audit func(store.Store, *chat.Webhook, chat.AuditAction) error) error {
	err := a.store.InTx(ctx, func(tx store.Store) error {
		if audit != nil {
			if err := audit(tx, w, chat.AuditAction{Type: chat.AuditWebhookDelete, Name: named(w.Name)}); err != nil {
				return err
			}
		}
		if err := tx.DeleteWebhook(ctx, w.ID); err != nil {
			return notFound(err)
		}
		return dropFile(ctx, tx, w.Avatar)
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.IDEvent{Type: chat.EvWebhookDelete, ID: w.ID}, event.Of(w.ChannelID))
	return nil
}

// webhookChannel is the webhook's channel as the webhook may use it:
// what it holds there is its own permissions, not a member's.
func (a *App) webhookChannel(ctx context.Context, w *chat.Webhook) (*channelAccess, error) {
	ch, err := a.store.FetchChannel(ctx, w.ChannelID)
	if err != nil {
		return nil, notFound(err)
	}
	acc := &channelAccess{ch: ch, perms: perm.Set(w.Permissions)}
	if ch.IsServerChannel() {
		if acc.server, err = a.store.FetchServer(ctx, ch.Server); err != nil {
			return nil, notFound(err)
		}
	}
	return acc, nil
}

// webhookSender is how a webhook posts: under its own id with its name
// and avatar, held to the default user limits.
func (a *App) webhookSender(w *chat.Webhook) sender {
	return sender{id: w.ID, webhook: w.MessageAuthor(), limits: a.settings.Limits.Default}
}

// ExecuteWebhook posts a message as the webhook
// (POST /webhooks/{webhook_id}/{token}). Every check uses the webhook's
// own permissions: SendMessage, UploadFiles for attachments, SendEmbeds,
// Masquerade, React for interactions, MentionEveryone and MentionRoles
// for mass and role mentions.
func (a *App) ExecuteWebhook(ctx context.Context, id chat.ID, token string, data chat.MessageSend, key string) (*chat.Message, error) {
	w, err := a.tokenWebhook(ctx, id, token)
	if err != nil {
		return nil, err
	}
	acc, err := a.webhookChannel(ctx, w)
	if err != nil {
		return nil, err
	}
	return a.postMessage(ctx, acc, a.webhookSender(w), data, key)
}

// ExecuteGitHubWebhook turns a GitHub event delivery into a message with
// one text embed (POST /webhooks/{webhook_id}/{token}/github). event is
// the X-GitHub-Event header. Events and actions that say nothing worth a
// message (ping, unstarring, labels…) post nothing; an unknown event or
// a body that is not the event's payload is InvalidOperation.
func (a *App) ExecuteGitHubWebhook(ctx context.Context, id chat.ID, token, event string, body []byte) error {
	w, err := a.tokenWebhook(ctx, id, token)
	if err != nil {
		return err
	}
	embed, err := github.Embed(event, body)
	if err != nil {
		return err
	}
	if embed == nil {
		return nil
	}
	acc, err := a.webhookChannel(ctx, w)
	if err != nil {
		return err
	}
	_, err = a.postMessage(ctx, acc, a.webhookSender(w), chat.MessageSend{Embeds: []chat.SendableEmbed{*embed}}, "")
	return err
}

// EditWebhookMessage edits a message the webhook sent
// (PATCH /webhooks/{webhook_id}/{token}/{message_id}); another author's
// message is CannotEditMessage. New embeds need SendEmbeds.
func (a *App) EditWebhookMessage(ctx context.Context, id chat.ID, token string, message chat.ID, data chat.MessageEdit) (*chat.Message, error) {
	w, err := a.tokenWebhook(ctx, id, token)
	if err != nil {
		return nil, err
	}
	if data.Embeds != nil && len(*data.Embeds) > 0 {
		if err := perm.Require(perm.Set(w.Permissions), perm.SendEmbeds); err != nil {
			return nil, err
		}
	}
	m, err := a.reviseMessage(ctx, w.ChannelID, message, w.ID, a.settings.Limits.Default, data)
	if err == nil && data.Content != nil {
		a.queueLinkEmbeds(ctx, m) // always for webhooks
	}
	return m, err
}

// DeleteWebhookMessage deletes a message the webhook sent
// (DELETE /webhooks/{webhook_id}/{token}/{message_id}); another author's
// message is CannotDeleteMessage. Its uploads are released.
func (a *App) DeleteWebhookMessage(ctx context.Context, id chat.ID, token string, message chat.ID) error {
	w, err := a.tokenWebhook(ctx, id, token)
	if err != nil {
		return err
	}
	err = a.store.InTx(ctx, func(tx store.Store) error {
		m, err := channelMessage(ctx, tx, w.ChannelID, message)
		if err != nil {
			return err
		}
		if m.Author != w.ID {
			return chat.ErrCannotDeleteMessage
		}
		if err := tx.DeleteMessage(ctx, m.ID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return chat.ErrNotFound
			}
			return dbError("delete message", err)
		}
		return releaseFiles(ctx, tx, messageFiles(m))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.MessageDeleteEvent{Type: chat.EvMessageDelete, ID: message, Channel: w.ChannelID},
		event.Of(w.ChannelID))
	return nil
}
