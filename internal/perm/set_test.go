package perm

import (
	"errors"
	"slices"
	"testing"

	"ermine/internal/chat"
)

func TestFlagBits(t *testing.T) {
	// The seed's table and behaviour.md §3.1: name → bit, 31 flags.
	const flags = 35
	want := map[string]uint{
		"ManageChannel": 0, "ManageServer": 1, "ManagePermissions": 2, "ManageRole": 3,
		"ManageCustomisation": 4, "KickMembers": 6, "BanMembers": 7, "TimeoutMembers": 8,
		"AssignRoles": 9, "ChangeNickname": 10, "ManageNicknames": 11, "ChangeAvatar": 12,
		"RemoveAvatars": 13, "ViewChannel": 20, "ReadMessageHistory": 21, "SendMessage": 22,
		"ManageMessages": 23, "ManageWebhooks": 24, "InviteOthers": 25, "SendEmbeds": 26,
		"UploadFiles": 27, "Masquerade": 28, "React": 29, "Connect": 30, "Speak": 31,
		"Video": 32, "MuteMembers": 33, "DeafenMembers": 34, "MoveMembers": 35,
		"Listen": 36, "MentionEveryone": 37, "MentionRoles": 38, "BypassSlowmode": 39, "ViewAuditLogs": 40,
		"UseExternalEmojis": 41,
	}
	if len(flagNames) != flags || len(want) != flags {
		t.Fatalf("%d named flags, want %d", len(flagNames), len(want))
	}
	var all Set
	for _, f := range flagNames {
		bit, ok := want[f.name]
		if !ok {
			t.Errorf("unexpected flag %q", f.name)
			continue
		}
		if f.flag != 1<<bit {
			t.Errorf("%s = %d, want 1<<%d", f.name, f.flag, bit)
		}
		if all&f.flag != 0 {
			t.Errorf("%s shares a bit with another flag", f.name)
		}
		all |= f.flag
	}
	// The constants are the same values as the table.
	consts := map[string]Set{
		"ManageChannel": ManageChannel, "ManageServer": ManageServer, "ManagePermissions": ManagePermissions,
		"ManageRole": ManageRole, "ManageCustomisation": ManageCustomisation, "KickMembers": KickMembers,
		"BanMembers": BanMembers, "TimeoutMembers": TimeoutMembers, "AssignRoles": AssignRoles,
		"ChangeNickname": ChangeNickname, "ManageNicknames": ManageNicknames, "ChangeAvatar": ChangeAvatar,
		"RemoveAvatars": RemoveAvatars, "ViewChannel": ViewChannel, "ReadMessageHistory": ReadMessageHistory,
		"SendMessage": SendMessage, "ManageMessages": ManageMessages, "ManageWebhooks": ManageWebhooks,
		"InviteOthers": InviteOthers, "SendEmbeds": SendEmbeds, "UploadFiles": UploadFiles,
		"Masquerade": Masquerade, "React": React, "Connect": Connect, "Speak": Speak, "Video": Video,
		"MuteMembers": MuteMembers, "DeafenMembers": DeafenMembers, "MoveMembers": MoveMembers,
		"MentionEveryone": MentionEveryone, "MentionRoles": MentionRoles, "Listen": Listen,
		"BypassSlowmode": BypassSlowmode, "ViewAuditLogs": ViewAuditLogs, "UseExternalEmojis": UseExternalEmojis,
	}
	for name, bit := range want {
		if got := consts[name]; got != 1<<bit {
			t.Errorf("const %s = %d, want %d", name, got, uint64(1)<<bit)
		}
	}
}

func TestConstants(t *testing.T) {
	// Values from behaviour.md §3.2 and §3.1.
	tests := []struct {
		name string
		got  Set
		want uint64
	}{
		{"GrantAllSafe", GrantAllSafe, 4503599627370495},
		{"ViewOnly", ViewOnly, 3145728},
		// The contract-era values plus Video (1<<32) and Listen (1<<36),
		// which later reference versions added to the defaults.
		{"Default", Default, 3463446528 + 1<<32 + 1<<36},
		{"DefaultDirectMessage", DefaultDirectMessage, 4000317441 + 1<<32 + 1<<36},
		{"DefaultGroup", DefaultGroup, 4000317441 + 1<<32 + 1<<36 + 1<<28},
		{"DefaultServer", DefaultServer, 4000322560 + 1<<32 + 1<<36 + 1<<41}, // UseExternalEmojis: feat/block-emojis
		{"DefaultWebhook", DefaultWebhook, 876609536},
		{"AllowedInTimeout", AllowedInTimeout, 3145728},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if uint64(tt.got) != tt.want {
				t.Errorf("%s = %d, want %d", tt.name, uint64(tt.got), tt.want)
			}
		})
	}
	if GrantAllSafe != 1<<52-1 {
		t.Errorf("GrantAllSafe is not 2^52-1")
	}
	for _, f := range flagNames {
		if !GrantAllSafe.Has(f.flag) {
			t.Errorf("GrantAllSafe lacks %s", f.name)
		}
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name string
		p    Set
		o    chat.Override
		want Set
	}{
		{"empty override", ViewOnly, chat.Override{}, ViewOnly},
		{"allow adds", ViewChannel, chat.Override{A: int64(SendMessage)}, ViewChannel | SendMessage},
		{"deny removes", ViewOnly, chat.Override{D: int64(ReadMessageHistory)}, ViewChannel},
		{"deny wins over allow in one override", 0,
			chat.Override{A: int64(SendMessage | React), D: int64(SendMessage)}, React},
		{"deny of absent bit", ViewChannel, chat.Override{D: int64(SendMessage)}, ViewChannel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Apply(tt.o); got != tt.want {
				t.Errorf("%v.Apply(%+v) = %v, want %v", tt.p, tt.o, got, tt.want)
			}
		})
	}
}

func TestHas(t *testing.T) {
	if !ViewOnly.Has(ViewChannel) || !ViewOnly.Has(ViewOnly) || !ViewOnly.Has(0) {
		t.Error("ViewOnly should hold its own flags and the empty set")
	}
	if ViewOnly.Has(ViewChannel | SendMessage) {
		t.Error("Has must require every flag")
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		set       Set
		names     []string
		str, name string
	}{
		{0, nil, "0", "0"},
		{SendMessage, []string{"SendMessage"}, "SendMessage", "SendMessage"},
		{MentionRoles, []string{"MentionRoles"}, "MentionRoles", "MentionRoles"},
		{ViewOnly, []string{"ViewChannel", "ReadMessageHistory"},
			"ViewChannel|ReadMessageHistory", "ViewChannel|ReadMessageHistory"},
		{ManageChannel | 1<<5 | 1<<42, []string{"ManageChannel"}, "ManageChannel|0x40000000020", "ManageChannel|0x40000000020"},
		{1 << 42, nil, "0x40000000000", "0x40000000000"},
		{Listen | ViewAuditLogs, []string{"Listen", "ViewAuditLogs"}, "Listen|ViewAuditLogs", "Listen|ViewAuditLogs"},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			if got := tt.set.Names(); !slices.Equal(got, tt.names) {
				t.Errorf("Names() = %q, want %q", got, tt.names)
			}
			if got := tt.set.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if got := Name(tt.set); got != tt.name {
				t.Errorf("Name() = %q, want %q", got, tt.name)
			}
		})
	}
	for _, f := range flagNames {
		if Name(f.flag) != f.name {
			t.Errorf("Name(%d) = %q, want %q", f.flag, Name(f.flag), f.name)
		}
	}
}

func TestRequire(t *testing.T) {
	tests := []struct {
		name         string
		held, needed Set
		missing      string // "" when allowed
	}{
		{"nothing needed", 0, 0, ""},
		{"held", DefaultServer, SendMessage | ViewChannel, ""},
		{"one missing", ViewOnly, SendMessage, "SendMessage"},
		{"lowest missing named", ViewChannel, ManageMessages | ReadMessageHistory | ManageChannel, "ManageChannel"},
		{"partly held", ViewChannel | ManageChannel, ManageMessages | ReadMessageHistory | ManageChannel, "ReadMessageHistory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Require(tt.held, tt.needed)
			if tt.missing == "" {
				if err != nil {
					t.Fatalf("Require = %v, want nil", err)
				}
				return
			}
			var ce *chat.Error
			if !errors.As(err, &ce) || ce.Type != "MissingPermission" {
				t.Fatalf("Require = %v, want MissingPermission", err)
			}
			if got := ce.Fields["permission"]; got != tt.missing {
				t.Errorf("permission = %v, want %q", got, tt.missing)
			}
		})
	}
}

func TestCheckOverride(t *testing.T) {
	ov := func(a, d Set) chat.Override { return chat.Override{A: int64(a), D: int64(d)} }
	ptr := func(o chat.Override) *chat.Override { return &o }
	tests := []struct {
		name string
		held Set
		old  *chat.Override
		next chat.Override
		ok   bool
	}{
		{"new allow held", ViewOnly | SendMessage, nil, ov(SendMessage, 0), true},
		{"new allow not held", ViewOnly, nil, ov(SendMessage, 0), false},
		{"new deny needs nothing", 0, nil, ov(0, SendMessage|ManageServer), true},
		{"keeping an allow the actor lacks", ViewChannel, ptr(ov(ManageServer, 0)), ov(ManageServer|ViewChannel, 0), true},
		{"dropping an allow needs nothing", 0, ptr(ov(ManageServer, 0)), ov(0, 0), true},
		{"adding a deny needs nothing", 0, ptr(ov(0, 0)), ov(0, ManageServer), true},
		{"lifting a deny held", ManageServer, ptr(ov(0, ManageServer)), ov(0, 0), true},
		{"lifting a deny not held", ViewChannel, ptr(ov(0, ManageServer)), ov(0, 0), false},
		{"newly allowing not held", ViewChannel, ptr(ov(ViewChannel, 0)), ov(ViewChannel|Video, 0), false},
		{"moving deny to allow needs the bit", 0, ptr(ov(0, React)), ov(React, 0), false},
		{"moving deny to allow held", React, ptr(ov(0, React)), ov(React, 0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckOverride(tt.held, tt.old, tt.next)
			if tt.ok && err != nil {
				t.Fatalf("CheckOverride = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, chat.ErrCannotGiveMissingPermissions) {
				t.Fatalf("CheckOverride = %v, want CannotGiveMissingPermissions", err)
			}
		})
	}
}

func TestCheckDefault(t *testing.T) {
	tests := []struct {
		name        string
		held, value Set
		ok          bool
	}{
		{"owner sets anything safe", GrantAllSafe, DefaultServer | ManageServer, true},
		{"subset", DefaultServer, Default, true},
		{"one bit missing", Default, DefaultServer, false},
		{"unchanged bits still need holding", ViewOnly, ViewOnly | SendMessage, false},
		{"zero", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDefault(tt.held, tt.value)
			if tt.ok && err != nil {
				t.Fatalf("CheckDefault = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, chat.ErrCannotGiveMissingPermissions) {
				t.Fatalf("CheckDefault = %v, want CannotGiveMissingPermissions", err)
			}
		})
	}
}
