package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// VoiceWebhookPath is where LiveKit posts its webhooks (livekit.yaml
// webhook.urls points here).
const VoiceWebhookPath = "/voice/livekit"

func (a *API) routesVoice(mux router) {
	mux.Handle("POST /channels/{target}/join_call", a.user(a.joinCall))
	mux.Handle("PUT /channels/{target}/end_ring/{user}", a.user(a.endRing))
	mux.Handle("POST "+VoiceWebhookPath, a.public(a.voiceWebhook))
}

// joinCall handles POST /channels/{target}/join_call.
func (a *API) joinCall(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	data, err := decode[chat.JoinCall](w, r, a.limit)
	if err != nil {
		return err
	}
	t, err := a.app.JoinCall(r.Context(), c, chat.ID(r.PathValue("target")), data)
	if err != nil {
		return err
	}
	return respond(w, t)
}

// endRing handles PUT /channels/{target}/end_ring/{user}.
func (a *API) endRing(w http.ResponseWriter, r *http.Request, c *app.Caller) error {
	if err := a.app.EndRing(r.Context(), c, chat.ID(r.PathValue("target")), chat.ID(r.PathValue("user"))); err != nil {
		return err
	}
	return noContent(w)
}

// voiceWebhook handles POST /voice/livekit: a LiveKit webhook, signed
// with the node's API secret.
func (a *API) voiceWebhook(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return chat.ErrFailedValidation(fmt.Sprintf("body: larger than %d bytes", tooBig.Limit))
		}
		return chat.ErrFailedValidation("body: could not be read")
	}
	if err := a.app.VoiceWebhook(r.Context(), r.Header.Get("Authorization"), body); err != nil {
		return err
	}
	return noContent(w)
}
