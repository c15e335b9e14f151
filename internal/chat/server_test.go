package chat

import (
	"encoding/json"
	"testing"
)

// FuzzServerUnmarshal checks the server reader that gives roles their ids:
// whatever it accepts, every role carries its key as id, and writing and
// reading again gives the same server.
func FuzzServerUnmarshal(f *testing.F) {
	f.Add([]byte(`{"_id":"S","owner":"U","name":"n","channels":[],"default_permissions":0,"roles":{"R":{"name":"Mods","permissions":{"a":1,"d":0},"rank":0}}}`))
	f.Add([]byte(`{"_id":"S","roles":{"R":{"_id":"X","name":"Wrong id","permissions":{"a":0,"d":0},"rank":1}}}`))
	f.Add([]byte(`{"roles":null}`))
	f.Add([]byte(`{"roles":{"":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Server
		if err := json.Unmarshal(b, &s); err != nil {
			return
		}
		for id, r := range s.Roles {
			if r.ID != id {
				t.Fatalf("role %q has id %q", id, r.ID)
			}
		}
		out, err := json.Marshal(&s)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var again Server
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("read back %s: %v", out, err)
		}
		out2, err := json.Marshal(&again)
		if err != nil || string(out2) != string(out) {
			t.Fatalf("round trip changed the server:\n%s\n%s", out, out2)
		}
	})
}

func TestRoleIDFromKey(t *testing.T) {
	var s Server
	if err := json.Unmarshal([]byte(`{"roles":{"R1":{"name":"a","permissions":{"a":0,"d":0},"rank":0}}}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Roles["R1"].ID != "R1" {
		t.Fatalf("role = %+v", s.Roles["R1"])
	}
	out, _ := json.Marshal(s.Roles["R1"])
	if string(out) != `{"_id":"R1","name":"a","permissions":{"a":0,"d":0},"rank":0}` {
		t.Fatalf("role JSON = %s", out)
	}
}
