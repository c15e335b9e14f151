package api

import (
	"net/http"

	"ermine/internal/app"
)

// Root is what GET / tells clients about this instance (the contract's
// RevoltConfig). Clients discover the events and upload addresses here.
type Root struct {
	Revolt string `json:"revolt"`
	// Stoat is Revolt under its 0.16.0 name; both are sent, since the
	// Android app still requires revolt.
	Stoat    string    `json:"stoat"`
	Features Features  `json:"features"`
	WS       string    `json:"ws"`
	App      string    `json:"app"`
	VAPID    string    `json:"vapid"`
	Build    BuildInfo `json:"build"`
}

// Features says which optional services are on.
type Features struct {
	Captcha    CaptchaFeature `json:"captcha"`
	Email      bool           `json:"email"`
	InviteOnly bool           `json:"invite_only"`
	Autumn     Feature        `json:"autumn"`
	January    Feature        `json:"january"`
	LiveKit    VoiceFeature   `json:"livekit"`
	// Limits and LegalLinks came in reference 0.13.0 and 0.14.0.
	Limits     LimitsFeature `json:"limits"`
	LegalLinks LegalLinks    `json:"legal_links"`
}

// LimitsFeature tells clients the instance's limits (features.limits).
type LimitsFeature struct {
	Global  GlobalLimits `json:"global"`
	NewUser UserLimits   `json:"new_user"`
	Default UserLimits   `json:"default"`
}

// GlobalLimits are the limits that apply to everyone.
type GlobalLimits struct {
	GroupSize              int   `json:"group_size"`
	MessageEmbeds          int   `json:"message_embeds"`
	MessageReplies         int   `json:"message_replies"`
	MessageReactions       int   `json:"message_reactions"`
	ServerEmoji            int   `json:"server_emoji"`
	ServerRoles            int   `json:"server_roles"`
	ServerChannels         int   `json:"server_channels"`
	BodyLimitSize          int64 `json:"body_limit_size"`
	RestrictServerCreation bool  `json:"restrict_server_creation"`
	NewUserHours           int   `json:"new_user_hours"`
}

// UserLimits are the limits of one class of users (new or not).
type UserLimits struct {
	OutgoingFriendRequests int              `json:"outgoing_friend_requests"`
	Bots                   int              `json:"bots"`
	MessageLength          int              `json:"message_length"`
	MessageAttachments     int              `json:"message_attachments"`
	Servers                int              `json:"servers"`
	VoiceQuality           int              `json:"voice_quality"`
	Video                  bool             `json:"video"`
	VideoResolution        [2]int           `json:"video_resolution"`
	VideoAspectRatio       [2]float64       `json:"video_aspect_ratio"`
	FileUploadSizeLimits   map[string]int64 `json:"file_upload_size_limits"`
}

// LegalLinks are the instance's legal documents; nil when not configured.
type LegalLinks struct {
	TermsOfService *string `json:"terms_of_service"`
	PrivacyPolicy  *string `json:"privacy_policy"`
	Guidelines     *string `json:"guidelines"`
}

// CaptchaFeature is the hCaptcha configuration clients need.
type CaptchaFeature struct {
	Enabled bool   `json:"enabled"`
	Key     string `json:"key"`
}

// Feature is a service with a URL.
type Feature struct {
	Enabled bool   `json:"enabled"`
	URL     string `json:"url"`
}

// VoiceFeature lists the voice nodes.
type VoiceFeature struct {
	Enabled bool        `json:"enabled"`
	Nodes   []VoiceNode `json:"nodes"`
}

// VoiceNode is one voice server.
type VoiceNode struct {
	Name      string  `json:"name"`
	Lat       float64 `json:"lat"`
	Lon       float64 `json:"lon"`
	PublicURL string  `json:"public_url"`
}

// BuildInfo identifies the running build.
type BuildInfo struct {
	CommitSHA       string `json:"commit_sha"`
	CommitTimestamp string `json:"commit_timestamp"`
	Semver          string `json:"semver"`
	OriginURL       string `json:"origin_url"`
	Timestamp       string `json:"timestamp"`
}

// rootRoot handles GET /.
func (a *API) rootRoot(w http.ResponseWriter, _ *http.Request, _ *app.Caller) error {
	root := a.root
	if root.Features.LiveKit.Nodes == nil {
		root.Features.LiveKit.Nodes = []VoiceNode{}
	}
	return respond(w, root)
}

// WellKnown is GET /.well-known/stoat: where this instance's API is, the
// discovery document of the reference's self-hosted set-up that clients
// with more than one instance read.
type WellKnown struct {
	API string `json:"api"`
}

// wellKnown handles GET /.well-known/stoat. Any site may read it (the
// CORS middleware answers every origin).
func (a *API) wellKnown(w http.ResponseWriter, _ *http.Request, _ *app.Caller) error {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	return respond(w, WellKnown{API: a.apiURL})
}

// healthz handles GET /healthz: 200 when the store answers.
func (a *API) healthz(w http.ResponseWriter, r *http.Request, _ *app.Caller) error {
	if err := a.app.Health(r.Context()); err != nil {
		a.log.ErrorContext(r.Context(), "health check", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return nil
	}
	return respond(w, map[string]string{"status": "ok"})
}
