package chat

// Event is an event the app publishes: Kind names its type (its type
// field), which the bus frame carries beside the encoded event.
type Event interface {
	Kind() string
}

// Each event's type is its type field.
func (e ErrorEvent) Kind() string                 { return e.Type }
func (e TypeOnly) Kind() string                   { return e.Type }
func (e BulkEvent) Kind() string                  { return e.Type }
func (e PongEvent) Kind() string                  { return e.Type }
func (e ReadyEvent) Kind() string                 { return e.Type }
func (e MessageEvent) Kind() string               { return e.Type }
func (e MessageUpdateEvent) Kind() string         { return e.Type }
func (e MessageAppendEvent) Kind() string         { return e.Type }
func (e MessageDeleteEvent) Kind() string         { return e.Type }
func (e BulkMessageDeleteEvent) Kind() string     { return e.Type }
func (e MessageReactEvent) Kind() string          { return e.Type }
func (e MessageRemoveReactionEvent) Kind() string { return e.Type }
func (e ChannelCreateEvent) Kind() string         { return e.Type }
func (e ChannelUpdateEvent) Kind() string         { return e.Type }
func (e IDEvent) Kind() string                    { return e.Type }
func (e ChannelUserEvent) Kind() string           { return e.Type }
func (e ChannelAckEvent) Kind() string            { return e.Type }
func (e ServerCreateEvent) Kind() string          { return e.Type }
func (e ServerUpdateEvent) Kind() string          { return e.Type }
func (e ServerMemberUpdateEvent) Kind() string    { return e.Type }
func (e ServerMemberJoinEvent) Kind() string      { return e.Type }
func (e ServerMemberLeaveEvent) Kind() string     { return e.Type }
func (e ServerRoleUpdateEvent) Kind() string      { return e.Type }
func (e ServerRoleDeleteEvent) Kind() string      { return e.Type }
func (e ServerRoleRanksUpdateEvent) Kind() string { return e.Type }
func (e UserUpdateEvent) Kind() string            { return e.Type }
func (e UserRelationshipEvent) Kind() string      { return e.Type }
func (e UserSettingsUpdateEvent) Kind() string    { return e.Type }
func (e UserPlatformWipeEvent) Kind() string      { return e.Type }
func (e EmojiUpdateEvent) Kind() string           { return e.Type }
func (e UserSlowmodesEvent) Kind() string         { return e.Type }
func (e EmojiCreateEvent) Kind() string           { return e.Type }
func (e AuthEvent) Kind() string                  { return e.Type }
func (e WebhookCreateEvent) Kind() string         { return e.Type }
func (e WebhookUpdateEvent) Kind() string         { return e.Type }
func (e VoiceChannelJoinEvent) Kind() string      { return e.Type }
func (e VoiceChannelLeaveEvent) Kind() string     { return e.Type }
func (e VoiceChannelMoveEvent) Kind() string      { return e.Type }
func (e UserVoiceStateUpdateEvent) Kind() string  { return e.Type }
func (e UserMoveVoiceChannelEvent) Kind() string  { return e.Type }
func (e VoiceCallUpdateEvent) Kind() string       { return e.Type }
