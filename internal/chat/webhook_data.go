package chat

import "fmt"

// WebhookFieldAvatar is the only optional webhook field an edit can
// remove. Contract: FieldsWebhook
const WebhookFieldAvatar = "Avatar"

// WebhookCreate is the body of POST /channels/{target}/webhooks.
// Contract: CreateWebhookBody
type WebhookCreate struct {
	Name   string  `json:"name"`
	Avatar *string `json:"avatar"`
}

// Validate checks the contract's field rules.
func (d *WebhookCreate) Validate() error {
	return FirstError(
		CheckLength("name", d.Name, 1, 32),
		CheckOptionalLength("avatar", d.Avatar, 1, 128),
	)
}

// WebhookEdit is the body of PATCH /webhooks/{webhook_id} and of its
// token-authenticated twin. Contract: DataEditWebhook
type WebhookEdit struct {
	Name        *string  `json:"name"`
	Avatar      *string  `json:"avatar"`
	Permissions *uint64  `json:"permissions"`
	Remove      []string `json:"remove"`
}

// Validate checks the contract's field rules.
func (d *WebhookEdit) Validate() error {
	if err := FirstError(
		CheckOptionalLength("name", d.Name, 1, 32),
		CheckOptionalLength("avatar", d.Avatar, 1, 128),
	); err != nil {
		return err
	}
	for i, f := range d.Remove {
		if err := CheckEnum(fmt.Sprintf("remove[%d]", i), f, WebhookFieldAvatar); err != nil {
			return err
		}
	}
	return nil
}

// ResponseWebhook is a webhook as shown to someone who may see the
// channel but not hold its token: no token, the avatar as a file id.
// Contract: ResponseWebhook
type ResponseWebhook struct {
	ID          ID      `json:"id"`
	Name        string  `json:"name"`
	Avatar      *string `json:"avatar,omitempty"`
	ChannelID   ID      `json:"channel_id"`
	Permissions uint64  `json:"permissions"`
}

// Response is the tokenless view of w.
func (w *Webhook) Response() *ResponseWebhook {
	r := &ResponseWebhook{ID: w.ID, Name: w.Name, ChannelID: w.ChannelID, Permissions: w.Permissions}
	if w.Avatar != nil {
		id := w.Avatar.ID
		r.Avatar = &id
	}
	return r
}

// WithoutToken is a copy of w whose token is hidden (null on the wire),
// as events and listings of people without the token show it.
func (w *Webhook) WithoutToken() *Webhook {
	c := *w
	c.Token = nil
	return &c
}

// MessageAuthor is how messages sent by w name it.
func (w *Webhook) MessageAuthor() *MessageWebhook {
	m := &MessageWebhook{Name: w.Name}
	if w.Avatar != nil {
		id := w.Avatar.ID
		m.Avatar = &id
	}
	return m
}
