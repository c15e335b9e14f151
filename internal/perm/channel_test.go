package perm

import (
	"testing"
	"time"

	"ermine/internal/chat"
)

func ptr[T any](v T) *T { return &v }

// textChannel belongs to testServer: its default override denies
// Masquerade and allows ManageWebhooks; the roles override it as follows.
//
//	admin  rank 0: allows React
//	muted  rank 1: denies ManageWebhooks, allows SendMessage
//	helper rank 2: denies React, allows UploadFiles
//	gone   (role deleted from the server): allows ManageChannel
func textChannel() *chat.Channel {
	return &chat.Channel{
		ChannelType:        chat.ChannelText,
		ID:                 "T",
		Server:             "S",
		Name:               "general",
		DefaultPermissions: ptr(ov(ManageWebhooks, Masquerade)),
		RolePermissions: map[chat.ID]chat.Override{
			"admin":  ov(React, 0),
			"muted":  ov(SendMessage, ManageWebhooks),
			"helper": ov(UploadFiles, React),
			"gone":   ov(ManageChannel, 0),
		},
	}
}

func TestForChannelServer(t *testing.T) {
	s := testServer()
	text := textChannel()
	voice := textChannel()
	voice.ChannelType = chat.ChannelVoice
	voice.Voice = &chat.VoiceInformation{}
	hidden := textChannel()
	hidden.DefaultPermissions = ptr(ov(0, ViewChannel))
	hidden.RolePermissions = map[chat.ID]chat.Override{"helper": ov(ViewChannel, 0)}
	bare := &chat.Channel{ChannelType: chat.ChannelText, ID: "B", Server: "S"}
	elsewhere := textChannel()
	elsewhere.Server = "OTHER"

	base := DefaultServer | ManageWebhooks // after the channel default
	tests := []struct {
		name string
		f    ChannelFacts
		want Set
	}{
		{"owner", ChannelFacts{Channel: text, Server: s, UserID: "O", Now: now}, GrantAllSafe},
		{"owner in hidden channel", ChannelFacts{Channel: hidden, Server: s, UserID: "O", Now: now}, GrantAllSafe},
		{"privileged", ChannelFacts{Channel: hidden, Server: s, UserID: "P", Privileged: true, Now: now}, GrantAllSafe},
		{"non-member", ChannelFacts{Channel: text, Server: s, UserID: "U", Now: now}, 0},
		{"server missing", ChannelFacts{Channel: text, Member: member("U"), UserID: "U", Now: now}, 0},
		{"server of another channel", ChannelFacts{Channel: elsewhere, Server: s, Member: member("U"), UserID: "U", Now: now}, 0},
		{"no overrides", ChannelFacts{Channel: bare, Server: s, Member: member("U"), UserID: "U", Now: now}, DefaultServer},
		{"channel default", ChannelFacts{Channel: text, Server: s, Member: member("U"), UserID: "U", Now: now}, base},
		{"voice channel", ChannelFacts{Channel: voice, Server: s, Member: member("U"), UserID: "U", Now: now}, base},
		{"role override", ChannelFacts{Channel: text, Server: s, Member: member("U", "helper"), UserID: "U", Now: now},
			(base | ManageMessages | UploadFiles) &^ React},
		{"rank 0 allow beats rank 2 deny", ChannelFacts{Channel: text, Server: s, Member: member("U", "helper", "admin"), UserID: "U", Now: now},
			base | ManageMessages | UploadFiles | ManageServer | KickMembers},
		{"channel role allow beats server role deny", ChannelFacts{Channel: text, Server: s, Member: member("U", "muted"), UserID: "U", Now: now},
			(base &^ (React | ManageWebhooks)) | SendMessage},
		{"channel role deny beats channel default allow", ChannelFacts{Channel: text, Server: s, Member: member("U", "muted", "helper"), UserID: "U", Now: now},
			(base | ManageMessages | UploadFiles | SendMessage) &^ (React | ManageWebhooks)},
		{"deleted role's channel override ignored", ChannelFacts{Channel: text, Server: s, Member: member("U", "gone"), UserID: "U", Now: now}, base},
		{"default hides channel", ChannelFacts{Channel: hidden, Server: s, Member: member("U"), UserID: "U", Now: now}, 0},
		{"role reveals hidden channel", ChannelFacts{Channel: hidden, Server: s, Member: member("U", "helper"), UserID: "U", Now: now},
			DefaultServer | ManageMessages},
		{"server role hides everything", ChannelFacts{Channel: bare, Server: s, Member: member("U", "deafen"), UserID: "U", Now: now}, 0},
		// #847: the channel default lies below the roles' server overrides.
		{"server role deny beats channel default allow", ChannelFacts{Channel: hidden2(), Server: s, Member: member("U", "deafen"), UserID: "U", Now: now}, 0},
		{"server role allow beats channel default deny", ChannelFacts{Channel: readOnly(), Server: s, Member: member("U", "helper"), UserID: "U", Now: now},
			DefaultServer | ManageMessages},
		{"channel default deny holds without a role", ChannelFacts{Channel: readOnly(), Server: s, Member: member("U"), UserID: "U", Now: now},
			DefaultServer &^ SendMessage},
		{"channel role deny beats server role allow", ChannelFacts{Channel: readOnlyForHelpers(), Server: s, Member: member("U", "helper"), UserID: "U", Now: now},
			(DefaultServer | ManageMessages) &^ SendMessage},
		{"channel default over a bare server default", ChannelFacts{Channel: text, Server: viewOnlyDefault(s), Member: member("U"), UserID: "U", Now: now},
			ViewChannel | ManageWebhooks},
		{"timed out after a server role allow", ChannelFacts{Channel: readOnly(), Server: s, Member: timedOut(member("U", "helper"), now.Add(time.Hour)), UserID: "U", Now: now}, ViewOnly},
		{"timed out", ChannelFacts{Channel: text, Server: s, Member: timedOut(member("U", "admin"), now.Add(time.Hour)), UserID: "U", Now: now}, ViewOnly},
		{"timed out in hidden channel", ChannelFacts{Channel: hidden, Server: s, Member: timedOut(member("U"), now.Add(time.Hour)), UserID: "U", Now: now}, 0},
		{"timeout cannot be lifted by channel overrides", ChannelFacts{Channel: lifting(), Server: s, Member: timedOut(member("U", "helper"), now.Add(time.Hour)), UserID: "U", Now: now}, ViewOnly},
		{"timeout expired", ChannelFacts{Channel: text, Server: s, Member: timedOut(member("U"), now.Add(-time.Hour)), UserID: "U", Now: now}, base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForChannel(tt.f); got != tt.want {
				t.Errorf("ForChannel = %v\nwant %v", got, tt.want)
			}
		})
	}
}

// hidden2 is a channel whose default override re-allows ViewChannel.
func hidden2() *chat.Channel {
	return &chat.Channel{ChannelType: chat.ChannelText, ID: "H", Server: "S", DefaultPermissions: ptr(ov(ViewChannel, 0))}
}

// readOnly is a channel whose default override denies SendMessage.
func readOnly() *chat.Channel {
	return &chat.Channel{ChannelType: chat.ChannelText, ID: "R", Server: "S", DefaultPermissions: ptr(ov(0, SendMessage))}
}

// readOnlyForHelpers is readOnly with helper's channel override denying
// SendMessage too.
func readOnlyForHelpers() *chat.Channel {
	c := readOnly()
	c.RolePermissions = map[chat.ID]chat.Override{"helper": ov(0, SendMessage)}
	return c
}

// viewOnlyDefault is s with a server default of ViewChannel only.
func viewOnlyDefault(s *chat.Server) *chat.Server {
	c := *s
	c.DefaultPermissions = int64(ViewChannel)
	return &c
}

// lifting is a channel whose overrides allow everything.
func lifting() *chat.Channel {
	return &chat.Channel{
		ChannelType: chat.ChannelText, ID: "L", Server: "S",
		DefaultPermissions: ptr(ov(GrantAllSafe, 0)),
		RolePermissions:    map[chat.ID]chat.Override{"helper": ov(GrantAllSafe, 0)},
	}
}

func TestForChannelSavedMessages(t *testing.T) {
	c := &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: "C", User: "U"}
	tests := []struct {
		name string
		f    ChannelFacts
		want Set
	}{
		{"owner", ChannelFacts{Channel: c, UserID: "U"}, GrantAllSafe},
		{"someone else", ChannelFacts{Channel: c, UserID: "V"}, 0},
		{"privileged", ChannelFacts{Channel: c, UserID: "V", Privileged: true}, GrantAllSafe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForChannel(tt.f); got != tt.want {
				t.Errorf("ForChannel = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestForChannelDirectMessage(t *testing.T) {
	c := &chat.Channel{ChannelType: chat.ChannelDirectMessage, ID: "C", Active: ptr(true), Recipients: []chat.ID{"U", "V"}}
	tests := []struct {
		name string
		f    ChannelFacts
		want Set
	}{
		{"friends", ChannelFacts{Channel: c, UserID: "U", Peer: UserFacts{Relationship: chat.RelationFriend}}, DefaultDirectMessage},
		{"strangers", ChannelFacts{Channel: c, UserID: "U", Peer: UserFacts{Relationship: chat.RelationNone}}, ViewOnly},
		{"pending request", ChannelFacts{Channel: c, UserID: "U", Peer: UserFacts{Relationship: chat.RelationOutgoing}}, ViewOnly},
		{"blocked", ChannelFacts{Channel: c, UserID: "U", Peer: UserFacts{Relationship: chat.RelationBlocked, Bot: true}}, ViewOnly},
		{"with a bot: the DM is the mutual connection", ChannelFacts{Channel: c, UserID: "U", Peer: UserFacts{Bot: true}}, DefaultDirectMessage},
		{"privileged recipient", ChannelFacts{Channel: c, UserID: "U", Peer: UserFacts{Privileged: true}}, DefaultDirectMessage},
		{"privileged outsider", ChannelFacts{Channel: c, UserID: "P", Privileged: true}, GrantAllSafe},
		{"not a recipient", ChannelFacts{Channel: c, UserID: "W", Peer: UserFacts{Relationship: chat.RelationFriend}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForChannel(tt.f); got != tt.want {
				t.Errorf("ForChannel = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestForChannelGroup(t *testing.T) {
	group := &chat.Channel{ChannelType: chat.ChannelGroup, ID: "G", Owner: "O", Recipients: []chat.ID{"O", "U"}}
	restricted := *group
	restricted.Permissions = ptr(int64(SendMessage))
	silent := *group
	silent.Permissions = ptr(int64(0))
	tests := []struct {
		name string
		f    ChannelFacts
		want Set
	}{
		{"owner", ChannelFacts{Channel: group, UserID: "O"}, GrantAllSafe},
		{"recipient, default", ChannelFacts{Channel: group, UserID: "U"}, DefaultGroup},
		{"recipient, group permissions", ChannelFacts{Channel: &restricted, UserID: "U"}, ViewOnly | SendMessage},
		{"recipient, zero permissions still view", ChannelFacts{Channel: &silent, UserID: "U"}, ViewOnly},
		{"outsider", ChannelFacts{Channel: group, UserID: "W"}, 0},
		{"privileged outsider", ChannelFacts{Channel: group, UserID: "W", Privileged: true}, GrantAllSafe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForChannel(tt.f); got != tt.want {
				t.Errorf("ForChannel = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestForChannelOther(t *testing.T) {
	if got := ForChannel(ChannelFacts{UserID: "U"}); got != 0 {
		t.Errorf("nil channel: %v", got)
	}
	c := &chat.Channel{ChannelType: "Mystery", ID: "M", User: "U", Owner: "U", Recipients: []chat.ID{"U"}}
	if got := ForChannel(ChannelFacts{Channel: c, UserID: "U"}); got != 0 {
		t.Errorf("unknown channel type: %v", got)
	}
	saved := &chat.Channel{ChannelType: chat.ChannelSavedMessages, ID: "C"}
	if got := ForChannel(ChannelFacts{Channel: saved}); got != 0 {
		t.Errorf("empty user id: %v", got)
	}
}

func BenchmarkForChannel(b *testing.B) {
	s := testServer()
	c := textChannel()
	m := member("U", "helper", "muted", "admin", "gone")
	f := ChannelFacts{Channel: c, Server: s, Member: m, UserID: "U", Now: now}
	b.ReportAllocs()
	for b.Loop() {
		if ForChannel(f) == 0 {
			b.Fatal("no permissions")
		}
	}
}
