package chat

// UserVoiceState is one user's state in a voice channel.
type UserVoiceState struct {
	ID            ID   `json:"id"`
	JoinedAt      Time `json:"joined_at"`
	IsReceiving   bool `json:"is_receiving"`
	IsPublishing  bool `json:"is_publishing"`
	Screensharing bool `json:"screensharing"`
	Camera        bool `json:"camera"`
}

// VoiceParticipant is a user connected to a voice channel, as stored:
// the state clients see plus where it lives.
type VoiceParticipant struct {
	Channel ID             `json:"channel"`
	Server  ID             `json:"server,omitempty"` // empty in DMs and groups
	Node    string         `json:"node"`
	State   UserVoiceState `json:"state"`
	// MovingTo is the channel a moderator moved the user to, set until
	// MoveUntil; their leaving this channel then is half of a move.
	MovingTo  ID    `json:"moving_to,omitempty"`
	MoveUntil *Time `json:"move_until,omitempty"`
	// Left marks a participant who left this channel during a move that
	// has not arrived in the other channel yet. Left rows are not shown.
	Left bool `json:"left,omitempty"`
}

// VoiceCall is a voice channel's call: the LiveKit node its room lives
// on, the call_started message and, in DMs and groups, who is rung.
type VoiceCall struct {
	Channel   ID     `json:"channel"`
	Node      string `json:"node"`
	Message   ID     `json:"message,omitempty"` // the call_started system message
	Initiator ID     `json:"initiator,omitempty"`
	StartedAt *Time  `json:"started_at,omitempty"`
	// Ring lists the users rung until RingUntil.
	Ring      []ID  `json:"ring,omitempty"`
	RingUntil *Time `json:"ring_until,omitempty"`
}

// JoinCall is the body of POST /channels/{id}/join_call.
// Contract: DataJoinCall
type JoinCall struct {
	Node            *string `json:"node"`
	ForceDisconnect *bool   `json:"force_disconnect"`
	Recipients      []ID    `json:"recipients"`
}

// Validate checks the contract's rules (none beyond the types).
func (d *JoinCall) Validate() error { return nil }

// VoiceToken answers join_call.
// Contract: CreateVoiceUserResponse
type VoiceToken struct {
	Token string `json:"token"`
	URL   string `json:"url"`
}

// Voice events.
const (
	EvVoiceChannelJoin     = "VoiceChannelJoin"
	EvVoiceChannelLeave    = "VoiceChannelLeave"
	EvVoiceChannelMove     = "VoiceChannelMove"
	EvUserVoiceStateUpdate = "UserVoiceStateUpdate"
	EvUserMoveVoiceChannel = "UserMoveVoiceChannel"
	EvVoiceCallUpdate      = "VoiceCallUpdate"
)

// VoiceChannelJoinEvent: a user joined a voice channel.
type VoiceChannelJoinEvent struct {
	Type  string         `json:"type"`
	ID    ID             `json:"id"`
	State UserVoiceState `json:"state"`
}

// VoiceChannelLeaveEvent: a user left a voice channel.
type VoiceChannelLeaveEvent struct {
	Type string `json:"type"`
	ID   ID     `json:"id"`
	User ID     `json:"user"`
}

// VoiceChannelMoveEvent: a moderator moved a user between channels.
type VoiceChannelMoveEvent struct {
	Type  string         `json:"type"`
	User  ID             `json:"user"`
	From  ID             `json:"from"`
	To    ID             `json:"to"`
	State UserVoiceState `json:"state"`
}

// UserVoiceStateUpdateEvent: part of a user's voice state changed.
type UserVoiceStateUpdateEvent struct {
	Type      string  `json:"type"`
	ID        ID      `json:"id"`
	ChannelID ID      `json:"channel_id"`
	Data      Partial `json:"data"`
}

// UserMoveVoiceChannelEvent tells a moved user where to connect.
type UserMoveVoiceChannelEvent struct {
	Type  string `json:"type"`
	Node  string `json:"node"`
	From  ID     `json:"from"`
	To    ID     `json:"to"`
	Token string `json:"token"`
}

// VoiceCallUpdateEvent: a DM or group call rings or ended.
type VoiceCallUpdateEvent struct {
	Type        string `json:"type"`
	InitiatorID ID     `json:"initiator_id"`
	ChannelID   ID     `json:"channel_id"`
	StartedAt   *Time  `json:"started_at,omitempty"`
	Ended       bool   `json:"ended"`
}
