package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// githubBodyLimit caps a GitHub delivery; GitHub sends pushes of many
// commits as one large payload, larger than the API's JSON bodies.
const githubBodyLimit = 5 << 20

// routesWebhooks registers the webhook routes: managing them with a
// session, and the token routes through which a webhook posts.
func (a *API) routesWebhooks(mux router) {
	mux.Handle("POST /channels/{target}/webhooks", a.moderation(a.createWebhook))
	mux.Handle("GET /channels/{target}/webhooks", a.user(a.fetchChannelWebhooks))
	mux.Handle("GET /webhooks/{webhook}", a.user(a.fetchWebhook))
	mux.Handle("PATCH /webhooks/{webhook}", a.moderation(a.editWebhook))
	mux.Handle("DELETE /webhooks/{webhook}", a.moderation(a.deleteWebhook))
	mux.Handle("GET /webhooks/{webhook}/{token}", a.public(a.fetchWebhookToken))
	mux.Handle("PATCH /webhooks/{webhook}/{token}", a.public(a.editWebhookToken))
	mux.Handle("DELETE /webhooks/{webhook}/{token}", a.public(a.deleteWebhookToken))
	mux.Handle("POST /webhooks/{webhook}/{token}", a.public(a.executeWebhook))
	mux.Handle("POST /webhooks/{webhook}/{token}/github", a.public(a.executeGitHubWebhook))
	mux.Handle("PATCH /webhooks/{webhook}/{token}/{message}", a.public(a.editWebhookMessage))
	mux.Handle("DELETE /webhooks/{webhook}/{token}/{message}", a.public(a.deleteWebhookMessage))
}

// webhookTarget is the {webhook} path value.
func webhookTarget(r *http.Request) chat.ID { return chat.ID(r.PathValue("webhook")) }

// createWebhook handles POST /channels/{target}/webhooks.
func (a *API) createWebhook(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.WebhookCreate](w, r, a.limit)
	if err != nil {
		return err
	}
	hook, err := a.app.CreateWebhook(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respond(w, hook)
}

// fetchChannelWebhooks handles GET /channels/{channel_id}/webhooks.
func (a *API) fetchChannelWebhooks(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	list, err := a.app.FetchChannelWebhooks(r.Context(), c, chat.ID(r.PathValue("target")))
	if err != nil {
		return err
	}
	return respond(w, list)
}

// fetchWebhook handles GET /webhooks/{webhook_id}.
func (a *API) fetchWebhook(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	hook, err := a.app.FetchWebhook(r.Context(), c, webhookTarget(r))
	if err != nil {
		return err
	}
	return respond(w, hook)
}

// editWebhook handles PATCH /webhooks/{webhook_id}.
func (a *API) editWebhook(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.WebhookEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	hook, err := a.app.EditWebhook(r.Context(), c, webhookTarget(r), data)
	if err != nil {
		return err
	}
	return respond(w, hook)
}

// deleteWebhook handles DELETE /webhooks/{webhook_id}.
func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.DeleteWebhook(r.Context(), c, webhookTarget(r)); err != nil {
		return err
	}
	return noContent(w)
}

// fetchWebhookToken handles GET /webhooks/{webhook_id}/{token}.
func (a *API) fetchWebhookToken(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	hook, err := a.app.FetchWebhookByToken(r.Context(), webhookTarget(r), r.PathValue("token"))
	if err != nil {
		return err
	}
	return respond(w, hook)
}

// editWebhookToken handles PATCH /webhooks/{webhook_id}/{token}.
func (a *API) editWebhookToken(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	data, err := decode[chat.WebhookEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	hook, err := a.app.EditWebhookByToken(r.Context(), webhookTarget(r), r.PathValue("token"), data)
	if err != nil {
		return err
	}
	return respond(w, hook)
}

// deleteWebhookToken handles DELETE /webhooks/{webhook_id}/{token}.
func (a *API) deleteWebhookToken(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	if err := a.app.DeleteWebhookByToken(r.Context(), webhookTarget(r), r.PathValue("token")); err != nil {
		return err
	}
	return noContent(w)
}

// executeWebhook handles POST /webhooks/{webhook_id}/{token}.
func (a *API) executeWebhook(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	data, err := decode[chat.MessageSend](w, r, a.limit)
	if err != nil {
		return err
	}
	m, err := a.app.ExecuteWebhook(r.Context(), webhookTarget(r), r.PathValue("token"), data, r.Header.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	return respond(w, m)
}

// executeGitHubWebhook handles POST /webhooks/{webhook_id}/{token}/github:
// the body is GitHub's payload, as JSON or as the form GitHub sends by
// default, the event its X-GitHub-Event header. It answers 200 with an
// empty body, as GitHub only looks at the status.
func (a *API) executeGitHubWebhook(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	event := r.Header.Get("X-GitHub-Event")
	if event == "" {
		return chat.ErrInvalidOperation
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, githubBodyLimit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			e := chat.ErrFailedValidation(fmt.Sprintf("body: larger than %d bytes", tooBig.Limit))
			e.Status = http.StatusRequestEntityTooLarge
			return e
		}
		return chat.ErrFailedValidation("body: could not be read")
	}
	// GitHub's default content type sends the JSON as the form field
	// "payload"; the other choice sends it as the body.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil || !form.Has("payload") {
			return chat.ErrInvalidOperation
		}
		body = []byte(form.Get("payload"))
	}
	// The input rule of every JSON body (checkBody): no string holds NUL.
	if json.Valid(body) {
		if p, bad := nulPath(body); bad {
			return chat.ErrInvalidBody(p + ": must not contain NUL characters")
		}
	}
	if err := a.app.ExecuteGitHubWebhook(r.Context(), webhookTarget(r), r.PathValue("token"), event, body); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// editWebhookMessage handles PATCH /webhooks/{webhook_id}/{token}/{message_id}.
func (a *API) editWebhookMessage(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	data, err := decode[chat.MessageEdit](w, r, a.limit)
	if err != nil {
		return err
	}
	m, err := a.app.EditWebhookMessage(r.Context(), webhookTarget(r), r.PathValue("token"),
		chat.ID(r.PathValue("message")), data)
	if err != nil {
		return err
	}
	return respond(w, m)
}

// deleteWebhookMessage handles DELETE /webhooks/{webhook_id}/{token}/{message_id}.
func (a *API) deleteWebhookMessage(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	err := a.app.DeleteWebhookMessage(r.Context(), webhookTarget(r), r.PathValue("token"), chat.ID(r.PathValue("message")))
	if err != nil {
		return err
	}
	return noContent(w)
}
