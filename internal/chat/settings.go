package chat

import (
	"encoding/json"

	"github.com/vmihailenco/msgpack/v5"
)

// Setting is one synced client setting: [timestamp in ms, value].
type Setting struct {
	Timestamp int64
	Value     string
}

// MarshalJSON writes the [timestamp, value] pair.
func (s Setting) MarshalJSON() ([]byte, error) {
	return marshalPair(s.Timestamp, s.Value)
}

// UnmarshalJSON reads the [timestamp, value] pair MarshalJSON writes
// (an export read back).
func (s *Setting) UnmarshalJSON(b []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &s.Timestamp); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &s.Value)
}

// Report is a safety report filed by a user, with a copy of what was
// reported taken when it was filed.
type Report struct {
	ID       ID              `json:"_id"`
	AuthorID ID              `json:"author_id"`
	Content  ReportedContent `json:"content"`
	// Snapshot is the reported item as it was when reported: for a
	// message {"_type":"Message", "_message", "_prior_context",
	// "_leading_context"}, for a server {"_type":"Server", "_server"},
	// for a user {"_type":"User", "_user", "_message"?}.
	Snapshot   map[string]any `json:"snapshot,omitempty"`
	Additional string         `json:"additional_context,omitempty"`
	Status     string         `json:"status"` // ReportCreated, ReportResolved or ReportRejected
	CreatedAt  Time           `json:"created_at"`
	// Set when an operator closed the report.
	ClosedAt *Time  `json:"closed_at,omitempty"`
	ClosedBy *ID    `json:"closed_by,omitempty"`
	Note     string `json:"notes,omitempty"`
	// Action is what the operator did to the reported item, if anything.
	Action string `json:"action,omitempty"`
}

// Report statuses.
const (
	ReportCreated  = "Created"
	ReportResolved = "Resolved"
	ReportRejected = "Rejected"
)

// Kinds of reported content.
const (
	ReportMessage = "Message"
	ReportServer  = "Server"
	ReportUser    = "User"
)

// ReportedContent names what a report is about.
// Rust: v0::ReportedContent
type ReportedContent struct {
	Type   string `json:"type"`
	ID     ID     `json:"id"`
	Reason string `json:"report_reason"`
	// MessageID is the message that gives a user report its context.
	MessageID *ID `json:"message_id,omitempty"`
}

// ReportContent is the body of POST /safety/report.
// Rust: v0::DataReportContent
type ReportContent struct {
	Content    ReportedContent `json:"content"`
	Additional string          `json:"additional_context"`
}

// PolicyChange is a change to the platform's policies users acknowledge.
type PolicyChange struct {
	CreatedTime   Time   `json:"created_time"`
	EffectiveTime Time   `json:"effective_time"`
	Description   string `json:"description"`
	URL           string `json:"url"`
}

// RegistrationInvite is a code that lets one account register on an
// invite-only instance.
type RegistrationInvite struct {
	Code    string `json:"_id"`
	Used    bool   `json:"used"`
	UsedBy  *ID    `json:"used_by,omitempty"`
	Created Time   `json:"created"`
}

// EncodeMsgpack writes the [timestamp, value] pair, as MarshalJSON does.
func (s Setting) EncodeMsgpack(enc *msgpack.Encoder) error {
	if err := enc.EncodeArrayLen(2); err != nil {
		return err
	}
	if err := enc.EncodeInt(s.Timestamp); err != nil {
		return err
	}
	return enc.EncodeString(s.Value)
}
