package chat

import "github.com/vmihailenco/msgpack/v5"

// Setting is one synced client setting: [timestamp in ms, value].
type Setting struct {
	Timestamp int64
	Value     string
}

// MarshalJSON writes the [timestamp, value] pair.
func (s Setting) MarshalJSON() ([]byte, error) {
	return marshalPair(s.Timestamp, s.Value)
}

// Report is a safety report filed by a user.
type Report struct {
	ID         ID     `json:"_id"`
	AuthorID   ID     `json:"author_id"`
	Content    any    `json:"content"` // ReportedContent as sent
	Snapshot   any    `json:"snapshot,omitempty"`
	Additional string `json:"additional_context,omitempty"`
	Status     string `json:"status"`
	CreatedAt  Time   `json:"created_at"`
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
