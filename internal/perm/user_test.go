package perm

import (
	"errors"
	"slices"
	"testing"

	"ermine/internal/chat"
)

func TestUserBits(t *testing.T) {
	if UserAccess != 1 || UserViewProfile != 2 || UserSendMessage != 4 || UserInvite != 8 || UserAll != 15 {
		t.Fatalf("user permission values differ from behaviour.md §3.1")
	}
	if got := UserAll.Names(); !slices.Equal(got, []string{"Access", "ViewProfile", "SendMessage", "Invite"}) {
		t.Errorf("UserAll.Names() = %q", got)
	}
	if got := (UserAccess | UserSendMessage).String(); got != "Access|SendMessage" {
		t.Errorf("String() = %q", got)
	}
	if got := UserSet(0).String(); got != "0" {
		t.Errorf("empty String() = %q", got)
	}
	if got := UserName(UserViewProfile); got != "ViewProfile" {
		t.Errorf("UserName = %q", got)
	}
}

func TestForUser(t *testing.T) {
	const (
		access  = UserAccess
		profile = UserAccess | UserViewProfile
	)
	tests := []struct {
		name string
		f    UserFacts
		want UserSet
	}{
		{"stranger", UserFacts{Relationship: chat.RelationNone}, 0},
		{"stranger, empty status", UserFacts{}, 0},
		{"self", UserFacts{Self: true, Relationship: chat.RelationUser}, UserAll},
		{"privileged viewer", UserFacts{Privileged: true}, UserAll},
		{"privileged viewer of someone who blocked them", UserFacts{Privileged: true, Relationship: chat.RelationBlockedOther}, UserAll},
		{"friend", UserFacts{Relationship: chat.RelationFriend}, UserAll},
		{"blocked", UserFacts{Relationship: chat.RelationBlocked, Mutual: true, Bot: true}, access},
		{"blocked by other", UserFacts{Relationship: chat.RelationBlockedOther, Mutual: true}, access},
		{"incoming", UserFacts{Relationship: chat.RelationIncoming}, access},
		{"outgoing", UserFacts{Relationship: chat.RelationOutgoing}, access},
		{"outgoing and mutual", UserFacts{Relationship: chat.RelationOutgoing, Mutual: true}, profile},
		{"mutual", UserFacts{Mutual: true}, profile},
		{"mutual with a bot", UserFacts{Mutual: true, Bot: true}, profile | UserSendMessage},
		{"bot without mutual connection", UserFacts{Bot: true}, 0},
		{"own bot is User status, grants nothing by itself", UserFacts{Relationship: chat.RelationUser}, 0},
		{"own bot sharing a server", UserFacts{Relationship: chat.RelationUser, Mutual: true, Bot: true}, profile | UserSendMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForUser(tt.f); got != tt.want {
				t.Errorf("ForUser(%+v) = %v, want %v", tt.f, got, tt.want)
			}
		})
	}
}

func TestUserFactsOf(t *testing.T) {
	alice := &chat.User{ID: "A", Relations: []chat.Relationship{
		{ID: "F", Status: chat.RelationFriend},
		{ID: "X", Status: chat.RelationBlocked},
	}}
	friend := &chat.User{ID: "F"}
	blocked := &chat.User{ID: "X"}
	stranger := &chat.User{ID: "S"}
	ownBot := &chat.User{ID: "B", Bot: &chat.BotInformation{Owner: "A"}}
	otherBot := &chat.User{ID: "C", Bot: &chat.BotInformation{Owner: "Z"}}
	staff := &chat.User{ID: "P", Privileged: true}

	tests := []struct {
		name           string
		viewer, target *chat.User
		mutual         bool
		want           UserFacts
	}{
		{"self", alice, alice, false, UserFacts{Self: true, Relationship: chat.RelationUser}},
		{"friend", alice, friend, false, UserFacts{Relationship: chat.RelationFriend}},
		{"blocked", alice, blocked, true, UserFacts{Relationship: chat.RelationBlocked, Mutual: true}},
		{"stranger", alice, stranger, false, UserFacts{Relationship: chat.RelationNone}},
		{"own bot", alice, ownBot, true, UserFacts{Relationship: chat.RelationUser, Mutual: true, Bot: true}},
		{"other's bot", alice, otherBot, false, UserFacts{Relationship: chat.RelationNone, Bot: true}},
		{"bot viewer", otherBot, alice, true, UserFacts{Relationship: chat.RelationNone, Mutual: true, Bot: true}},
		{"privileged", staff, alice, false, UserFacts{Privileged: true, Relationship: chat.RelationNone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UserFactsOf(tt.viewer, tt.target, tt.mutual); got != tt.want {
				t.Errorf("UserFactsOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRequireUser(t *testing.T) {
	if err := RequireUser(UserAccess|UserViewProfile, UserAccess); err != nil {
		t.Fatalf("RequireUser = %v, want nil", err)
	}
	err := RequireUser(UserAccess, UserViewProfile|UserSendMessage)
	var ce *chat.Error
	if !errors.As(err, &ce) || ce.Type != "MissingPermission" || ce.Fields["permission"] != "ViewProfile" {
		t.Fatalf("RequireUser = %v, want MissingPermission{permission:ViewProfile}", err)
	}
	err = RequireUser(0, UserAccess)
	if !errors.As(err, &ce) || ce.Fields["permission"] != "Access" {
		t.Fatalf("RequireUser = %v, want MissingPermission{permission:Access}", err)
	}
}
