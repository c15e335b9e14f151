package chat

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/vmihailenco/msgpack/v5"
)

// Error is a failure the client is told about. It marshals flat:
// {"type":"TooManyAttachments","max":5}. Only *Error values reach a
// client; anything else is reported as InternalError and logged.
type Error struct {
	Type   string         // name from the interface contract, e.g. "NotFound"
	Fields map[string]any // variant data, merged into the JSON object
	Err    error          // cause, for the log only; never sent
	Status int            // HTTP status when it differs from the catalogue's; 0 otherwise
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Type
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := e.Type
	for _, k := range keys {
		s += fmt.Sprintf(" %s=%v", k, e.Fields[k])
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Is compares by Type, so errors.Is(err, chat.ErrNotFound) works for any
// variant of the same type.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Type == e.Type
}

// MarshalJSON writes {"type": Type, ...Fields}.
func (e *Error) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(e.Fields)+1)
	for k, v := range e.Fields {
		m[k] = v
	}
	m["type"] = e.Type
	return json.Marshal(m)
}

// Wrap returns a copy of e that records cause for the log.
func (e *Error) Wrap(cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

func errType(t string) *Error { return &Error{Type: t} }

func errField(t, k string, v any) *Error {
	return &Error{Type: t, Fields: map[string]any{k: v}}
}

// The catalogue. Types without data are values; types with data are
// constructors. api/errors.go maps every type to its HTTP status.
var (
	ErrLabelMe                        = errType("LabelMe")
	ErrAlreadyOnboarded               = errType("AlreadyOnboarded")
	ErrUsernameTaken                  = errType("UsernameTaken")
	ErrInvalidUsername                = errType("InvalidUsername")
	ErrDiscriminatorChangeRatelimited = errType("DiscriminatorChangeRatelimited")
	ErrUnknownUser                    = errType("UnknownUser")
	ErrAlreadyFriends                 = errType("AlreadyFriends")
	ErrAlreadySentRequest             = errType("AlreadySentRequest")
	ErrBlocked                        = errType("Blocked")
	ErrBlockedByOther                 = errType("BlockedByOther")
	ErrNotFriends                     = errType("NotFriends")
	ErrUnknownChannel                 = errType("UnknownChannel")
	ErrUnknownAttachment              = errType("UnknownAttachment")
	ErrUnknownMessage                 = errType("UnknownMessage")
	ErrCannotEditMessage              = errType("CannotEditMessage")
	ErrCannotDeleteMessage            = errType("CannotDeleteMessage") // reference 0.13.0
	ErrHeaderTooLarge                 = errType("HeaderTooLarge")      // reference 0.14.0
	ErrCantCreateServers              = errType("CantCreateServers")   // reference 0.12.0
	ErrCannotJoinCall                 = errType("CannotJoinCall")
	ErrEmptyMessage                   = errType("EmptyMessage")
	ErrPayloadTooLarge                = errType("PayloadTooLarge")
	ErrCannotRemoveYourself           = errType("CannotRemoveYourself")
	ErrAlreadyInGroup                 = errType("AlreadyInGroup")
	ErrNotInGroup                     = errType("NotInGroup")
	ErrAlreadyPinned                  = errType("AlreadyPinned")
	ErrNotPinned                      = errType("NotPinned")
	ErrUnknownServer                  = errType("UnknownServer")
	ErrInvalidRole                    = errType("InvalidRole")
	ErrBanned                         = errType("Banned")
	ErrAlreadyInServer                = errType("AlreadyInServer")
	ErrCannotTimeoutYourself          = errType("CannotTimeoutYourself")
	ErrReachedMaximumBots             = errType("ReachedMaximumBots")
	ErrIsBot                          = errType("IsBot")
	ErrIsNotBot                       = errType("IsNotBot")
	ErrBotIsPrivate                   = errType("BotIsPrivate")
	ErrCannotReportYourself           = errType("CannotReportYourself")
	ErrNotElevated                    = errType("NotElevated")
	ErrNotPrivileged                  = errType("NotPrivileged")
	ErrCannotGiveMissingPermissions   = errType("CannotGiveMissingPermissions")
	ErrNotOwner                       = errType("NotOwner")
	ErrInternalError                  = errType("InternalError")
	ErrInvalidOperation               = errType("InvalidOperation")
	ErrInvalidCredentials             = errType("InvalidCredentials")
	ErrInvalidProperty                = errType("InvalidProperty")
	ErrInvalidSession                 = errType("InvalidSession")
	ErrInvalidFlagValue               = errType("InvalidFlagValue")
	ErrNotAuthenticated               = errType("NotAuthenticated")
	ErrDuplicateNonce                 = errType("DuplicateNonce")
	ErrNotFound                       = errType("NotFound")
	ErrNoEffect                       = errType("NoEffect")
	ErrLiveKitUnavailable             = errType("LiveKitUnavailable")
	ErrNotAVoiceChannel               = errType("NotAVoiceChannel")
	ErrAlreadyConnected               = errType("AlreadyConnected")
	ErrNotConnected                   = errType("NotConnected")
	ErrUnknownNode                    = errType("UnknownNode")
	ErrProxyError                     = errType("ProxyError")
	ErrFileTooSmall                   = errType("FileTooSmall")
	ErrFileTypeNotAllowed             = errType("FileTypeNotAllowed")
	ErrImageProcessingFailed          = errType("ImageProcessingFailed")
	ErrNoEmbedData                    = errType("NoEmbedData")
	ErrVosoUnavailable                = errType("VosoUnavailable")
	// ErrStorageUnavailable: the file store (S3) cannot be reached now; not
	// in the reference, whose file server answers 500 then.
	ErrStorageUnavailable = errType("StorageUnavailable")

	// Authentication component (accounts, sessions, MFA).
	ErrOperationFailed     = errType("OperationFailed")
	ErrRenderFail          = errType("RenderFail")
	ErrMissingHeaders      = errType("MissingHeaders")
	ErrCaptchaFailed       = errType("CaptchaFailed")
	ErrBlockedByShield     = errType("BlockedByShield")
	ErrUnverifiedAccount   = errType("UnverifiedAccount")
	ErrEmailFailed         = errType("EmailFailed")
	ErrInvalidToken        = errType("InvalidToken")
	ErrMissingInvite       = errType("MissingInvite")
	ErrInvalidInvite       = errType("InvalidInvite")
	ErrCompromisedPassword = errType("CompromisedPassword")
	ErrShortPassword       = errType("ShortPassword")
	ErrBlacklisted         = errType("Blacklisted")
	ErrLockedOut           = errType("LockedOut")
	ErrTotpAlreadyEnabled  = errType("TotpAlreadyEnabled")
	ErrDisallowedMFAMethod = errType("DisallowedMFAMethod")

	// Transport-level failures.
	ErrMethodNotAllowed = errType("MethodNotAllowed")
)

// ErrTooManyPendingFriendRequests reports the outgoing request limit.
func ErrTooManyPendingFriendRequests(max int) *Error {
	return errField("TooManyPendingFriendRequests", "max", max)
}

// ErrTooManyAttachments reports the per-message attachment limit.
func ErrTooManyAttachments(max int) *Error { return errField("TooManyAttachments", "max", max) }

// ErrTooManyEmbeds reports the per-message embed limit.
func ErrTooManyEmbeds(max int) *Error { return errField("TooManyEmbeds", "max", max) }

// ErrTooManyReplies reports the per-message reply limit.
func ErrTooManyReplies(max int) *Error { return errField("TooManyReplies", "max", max) }

// ErrTooManyChannels reports the per-server channel limit.
func ErrTooManyChannels(max int) *Error { return errField("TooManyChannels", "max", max) }

// ErrGroupTooLarge reports the group size limit.
func ErrGroupTooLarge(max int) *Error { return errField("GroupTooLarge", "max", max) }

// ErrTooManyServers reports the per-user server limit.
func ErrTooManyServers(max int) *Error { return errField("TooManyServers", "max", max) }

// ErrTooManyEmoji reports the per-server emoji limit.
func ErrTooManyEmoji(max int) *Error { return errField("TooManyEmoji", "max", max) }

// ErrTooManyRequests refuses a client address that holds too many
// unauthenticated event connections (an Ermine type: the reference
// answers its rate limits with a bare {"retry_after"}); retryAfter is in
// milliseconds.
func ErrTooManyRequests(retryAfter int64) *Error {
	return errField("TooManyRequests", "retry_after", retryAfter)
}

// ErrInSlowmode refuses a send inside the sender's slowmode window;
// retryAfter is in seconds (reference 0.12.0).
func ErrInSlowmode(retryAfter uint64) *Error {
	return errField("InSlowmode", "retry_after", retryAfter)
}

// ErrTooManyRoles reports the per-server role limit.
func ErrTooManyRoles(max int) *Error { return errField("TooManyRoles", "max", max) }

// ErrFileTooLarge reports the per-tag upload size limit in bytes.
func ErrFileTooLarge(max int64) *Error { return errField("FileTooLarge", "max", max) }

// ErrMissingPermission names the permission (or user permission) that
// the caller lacks, e.g. "SendMessage" or "Access".
func ErrMissingPermission(permission string) *Error {
	return errField("MissingPermission", "permission", permission)
}

// ErrMissingUserPermission names a missing user permission.
func ErrMissingUserPermission(permission string) *Error {
	return errField("MissingUserPermission", "permission", permission)
}

// ErrFailedValidation carries a message that names the offending field.
func ErrFailedValidation(msg string) *Error { return errField("FailedValidation", "error", msg) }

// ErrFeatureDisabled names a feature this instance has turned off.
func ErrFeatureDisabled(feature string) *Error {
	return errField("FeatureDisabled", "feature", feature)
}

// ErrIncorrectData names the account field that is malformed ("email").
func ErrIncorrectData(with string) *Error { return errField("IncorrectData", "with", with) }

// ErrDatabaseError reports a storage failure; the cause stays in the log.
func ErrDatabaseError(operation, collection string) *Error {
	return &Error{Type: "DatabaseError", Fields: map[string]any{"operation": operation, "collection": collection}}
}

// ErrInvalidBody is the answer to a body of the wrong shape: well-formed
// JSON whose fields have the wrong types or break the contract's rules.
// It is FailedValidation with HTTP 422 (malformed JSON keeps 400).
func ErrInvalidBody(msg string) *Error {
	e := ErrFailedValidation(msg)
	e.Status = 422
	return e
}

// EncodeMsgpack writes the error as the same flat map as its JSON form.
func (e *Error) EncodeMsgpack(enc *msgpack.Encoder) error {
	m := make(map[string]any, len(e.Fields)+1)
	for k, v := range e.Fields {
		m[k] = v
	}
	m["type"] = e.Type
	return enc.Encode(m)
}
