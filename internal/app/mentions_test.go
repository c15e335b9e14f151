package app

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"ermine/internal/chat"
)

const (
	idA chat.ID = "01HZY8Z1V8Y0Q6W3D1H3R6K9ZC"
	idB chat.ID = "01HZY8Z1V8Y0Q6W3D1H3R6K9ZD"
)

func TestParseMentions(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    mentions
	}{
		{"none", "hello there", mentions{}},
		{"user", "hi <@" + string(idA) + ">!", mentions{Users: []chat.ID{idA}}},
		{"role", "<%" + string(idB) + "> ping", mentions{Roles: []chat.ID{idB}}},
		{"repeated user once", "<@" + string(idA) + "><@" + string(idA) + ">", mentions{Users: []chat.ID{idA}}},
		{"two users in order", "<@" + string(idB) + "> <@" + string(idA) + ">", mentions{Users: []chat.ID{idB, idA}}},
		{"everyone", "@everyone look", mentions{Everyone: true}},
		{"online", "hey @online.", mentions{Online: true}},
		{"both", "@online @everyone", mentions{Everyone: true, Online: true}},
		{"inside a word", "mail me@everyone.com", mentions{}},
		{"longer word", "@everyones", mentions{}},
		{"escaped everyone", `\@everyone`, mentions{}},
		{"escaped user", `\<@` + string(idA) + `>`, mentions{}},
		{"escaped backslash", `\\@everyone`, mentions{Everyone: true}},
		{"code span", "`@everyone <@" + string(idA) + ">` outside", mentions{}},
		{"code block", "```\n@everyone\n``` <@" + string(idA) + ">", mentions{Users: []chat.ID{idA}}},
		{"double backtick span", "``a ` @everyone`` @online", mentions{Online: true}},
		{"unclosed backtick", "` @everyone", mentions{Everyone: true}},
		{"not a ulid", "<@nobody>", mentions{}},
		{"lower case id", "<@" + strings.ToLower(string(idA)) + ">", mentions{}},
		{"trailing backslash", `hi \`, mentions{}},
		{"unicode before", "é@everyone", mentions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseMentions(tt.content)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("parseMentions(%q) (-want +got):\n%s", tt.content, diff)
			}
		})
	}
}

func FuzzParseMentions(f *testing.F) {
	for _, s := range []string{"", "@everyone", "<@" + string(idA) + ">", "`<%" + string(idB) + ">`", `\@online`, "```x```@online"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		m := parseMentions(content)
		seen := map[chat.ID]bool{}
		for _, id := range append(append([]chat.ID{}, m.Users...), m.Roles...) {
			if !id.Valid() {
				t.Fatalf("mention %q is not a valid id", id)
			}
			if seen[id] {
				t.Fatalf("mention %q listed twice", id)
			}
			seen[id] = true
		}
		for _, id := range m.Users {
			if !strings.Contains(content, "<@"+string(id)+">") {
				t.Fatalf("user %s is not in %q", id, content)
			}
		}
		for _, id := range m.Roles {
			if !strings.Contains(content, "<%"+string(id)+">") {
				t.Fatalf("role %s is not in %q", id, content)
			}
		}
		if m.Everyone && !strings.Contains(content, "@everyone") || m.Online && !strings.Contains(content, "@online") {
			t.Fatalf("mass mention not in %q", content)
		}
		// Inside a code block nothing is a mention.
		if in := parseMentions("```" + strings.ReplaceAll(content, "`", "") + "```"); len(in.Users)+len(in.Roles) > 0 || in.Everyone || in.Online {
			t.Fatalf("mention found inside a code block: %q", content)
		}
	})
}
