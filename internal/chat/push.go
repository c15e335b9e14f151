package chat

// Types of mobile notifications, as the reference's push daemon names
// them in FCM data messages.
const (
	PushMessage   = "push.message"
	PushFRReceive = "push.fr.receive"
	PushFRAccept  = "push.fr.accept"
	PushDMCall    = "push.dm.call"
	PushGeneric   = "push.generic"
	// PushBadge only sets the app icon's badge (APNs only): the
	// reference's badge update after an acknowledgement.
	PushBadge = "push.badge"
)

// Mobile push subscriptions carry one of these as their endpoint and the
// platform's device token in auth (the official apps' registration).
const (
	PushEndpointFCM = "fcm"
	PushEndpointAPN = "apn"
)

// MobilePush is a notification for the official mobile apps before a
// platform (FCM, APNs) shapes it. Type is one of the Push* constants; the
// other fields apply per type.
type MobilePush struct {
	Type string `json:"type"`
	// push.message: the message, where it was sent and by whom.
	Message     *Message `json:"message,omitempty"`
	ChannelID   ID       `json:"channel_id,omitempty"`
	ChannelName string   `json:"channel_name,omitempty"`
	ChannelType string   `json:"channel_type,omitempty"`
	AuthorID    ID       `json:"author_id,omitempty"`
	AuthorName  string   `json:"author_name,omitempty"`
	Icon        string   `json:"icon,omitempty"`
	Body        string   `json:"body,omitempty"`
	URL         string   `json:"url,omitempty"`
	// push.fr.receive and push.fr.accept: the other user.
	UserID   ID     `json:"user_id,omitempty"`
	Username string `json:"username,omitempty"`
	// push.dm.call
	InitiatorID ID     `json:"initiator_id,omitempty"`
	StartedAt   string `json:"started_at,omitempty"`
	Ended       bool   `json:"ended,omitempty"`
	RingSeconds int    `json:"ring_seconds,omitempty"`
	// push.generic
	Title string `json:"title,omitempty"`
	Image string `json:"image,omitempty"`
	// Badge is the recipient's unread mention count, set per recipient
	// for APNs (aps.badge); nil leaves the badge as it is.
	Badge *int `json:"badge,omitempty"`
}

// IsMobilePush reports whether a subscription's endpoint is one of the
// mobile platforms rather than a Web Push URL.
func IsMobilePush(endpoint string) bool {
	return endpoint == PushEndpointFCM || endpoint == PushEndpointAPN
}

// PushNotification is the JSON a notification carries, the shape the
// web client's service worker shows.
type PushNotification struct {
	Type      string `json:"type"` // "Message", "FriendRequest" or "Call"
	Author    string `json:"author"`
	Icon      string `json:"icon"`
	Image     string `json:"image,omitempty"`
	Body      string `json:"body"`
	Tag       string `json:"tag"`
	Timestamp int64  `json:"timestamp"`
	URL       string `json:"url"`
	// Channel and Message identify a message notification.
	Channel ID `json:"channel,omitempty"`
	Message ID `json:"message,omitempty"`
}
