package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"ermine/internal/app"
	"ermine/internal/chat"
)

// statuses maps every error type a client can see to its HTTP status
// (behaviour.md §5 and §9.4). A test checks every catalogue entry has a row.
var statuses = map[string]int{
	"NoEffect": http.StatusOK, // clients rely on 200 here

	"InvalidUsername": 400, "TooManyPendingFriendRequests": 400, "UnknownAttachment": 400,
	"CannotJoinCall": 400, "TooManyAttachments": 400, "TooManyReplies": 400, "TooManyEmbeds": 400,
	"TooManyChannels": 400, "TooManyServers": 400, "TooManyEmoji": 400, "TooManyRoles": 400,
	"CannotRemoveYourself": 400, "AlreadyPinned": 400, "NotPinned": 400, "InvalidFlagValue": 400,
	"CannotTimeoutYourself": 400, "ReachedMaximumBots": 400, "IsBot": 400, "IsNotBot": 400,
	"CannotReportYourself": 400, "InvalidOperation": 400, "InvalidProperty": 400,
	"VosoUnavailable": 400, "FailedValidation": 400, "FeatureDisabled": 400, "ProxyError": 400,
	"FileTypeNotAllowed": 400, "NoEmbedData": 400, "LiveKitUnavailable": 400, "NotAVoiceChannel": 400,
	"AlreadyConnected": 400, "NotConnected": 400, "UnknownNode": 400,
	"IncorrectData": 400, "MissingHeaders": 400, "CaptchaFailed": 400, "BlockedByShield": 400,
	"MissingInvite": 400, "InvalidInvite": 400, "CompromisedPassword": 400, "ShortPassword": 400,
	"TotpAlreadyEnabled": 400, "DisallowedMFAMethod": 400, "HeaderTooLarge": 400,

	"InvalidCredentials": 401, "InvalidSession": 401, "NotAuthenticated": 401, "InvalidToken": 401,
	"Blacklisted": 401, "OnboardingNotFinished": 401,

	"AlreadyOnboarded": 403, "BlockedByOther": 403, "NotFriends": 403, "CannotEditMessage": 403, "CannotDeleteMessage": 403,
	"GroupTooLarge": 403, "Banned": 403, "BotIsPrivate": 403, "MissingPermission": 403,
	"MissingUserPermission": 403, "NotElevated": 403, "NotPrivileged": 403,
	"CannotGiveMissingPermissions": 403, "NotOwner": 403,
	"CantCreateServers": 403, "UnverifiedAccount": 403, "LockedOut": 403,

	"UnknownUser": 404, "UnknownChannel": 404, "UnknownMessage": 404, "NotInGroup": 404,
	"UnknownServer": 404, "InvalidRole": 404, "NotFound": 404,

	"MethodNotAllowed": 405,

	"UsernameTaken": 409, "AlreadyFriends": 409, "AlreadySentRequest": 409, "Blocked": 409,
	"AlreadyInGroup": 409, "AlreadyInServer": 409, "DuplicateNonce": 409,

	"EmptyMessage": 422, "PayloadTooLarge": 422, "FileTooSmall": 422, "FileTooLarge": 422,

	"DiscriminatorChangeRatelimited": 429, "InSlowmode": 429, "TooManyRequests": 429,

	"LabelMe": 500, "DatabaseError": 500, "InternalError": 500, "ImageProcessingFailed": 500,
	"OperationFailed": 500, "RenderFail": 500, "EmailFailed": 500,

	"StorageUnavailable": 503,
}

// Status returns the HTTP status of an error sent to a client.
func Status(e *chat.Error) int {
	if e.Status != 0 {
		return e.Status
	}
	if s, ok := statuses[e.Type]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// clientError turns any error into what the client may see: a *chat.Error
// as it is, anything else as InternalError.
func clientError(err error) *chat.Error {
	var ce *chat.Error
	if errors.As(err, &ce) {
		return ce
	}
	return chat.ErrInternalError
}

// writeError writes err as the client's error body with its status and
// logs failures the client did not cause.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ce := clientError(err)
	status := Status(ce)
	if status >= 500 {
		a.log.ErrorContext(r.Context(), "request failed", "request_id", requestID(r.Context()), "err", err)
	}
	if errors.Is(err, app.ErrOnboardingNotFinished) {
		// A session without a user may only use the account and onboarding
		// routes; everywhere else it is not authenticated.
		ce = chat.ErrNotAuthenticated
	}
	writeJSON(w, status, located(r, ce))
}

// authifierTypes are the errors of the account service's own catalogue
// (the contract's Authifier Error).
var authifierTypes = map[string]bool{
	"IncorrectData": true, "DatabaseError": true, "InternalError": true, "OperationFailed": true,
	"RenderFail": true, "MissingHeaders": true, "CaptchaFailed": true, "BlockedByShield": true,
	"InvalidSession": true, "UnverifiedAccount": true, "UnknownUser": true, "EmailFailed": true,
	"InvalidToken": true, "MissingInvite": true, "InvalidInvite": true, "InvalidCredentials": true,
	"CompromisedPassword": true, "ShortPassword": true, "Blacklisted": true, "LockedOut": true,
	"TotpAlreadyEnabled": true, "DisallowedMFAMethod": true,
}

// located is the body of an error: the contract's Error carries a
// location, here the route that failed (behaviour.md §5). On account
// routes (/auth/...) the account service's own errors have the Authifier
// shape, which has none (§9.4); the rest (e.g. FailedValidation of a
// malformed body) are the contract's Error there too.
func located(r *http.Request, ce *chat.Error) any {
	if strings.HasPrefix(r.URL.Path, "/auth/") && authifierTypes[ce.Type] {
		return ce
	}
	loc := r.Pattern
	if loc == "" {
		loc = "router"
	}
	m := make(map[string]any, len(ce.Fields)+2)
	for k, v := range ce.Fields {
		m[k] = v
	}
	m["type"], m["location"] = ce.Type, loc
	return m
}

// writeJSON writes v as a JSON body with a status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		slog.Default().Error("encode response", "err", err)
		status, b = http.StatusInternalServerError, []byte(`{"type":"InternalError"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
