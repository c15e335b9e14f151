package gateway

import (
	"encoding/json"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// FuzzParseResume checks the resume query: a stream id is only ever one
// newResumeID could have made, and no resume parameter means none.
func FuzzParseResume(f *testing.F) {
	f.Add("", "")
	f.Add("1", "")
	f.Add(newResumeID(), "12")
	f.Add(newResumeID(), "-1")
	f.Add("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "3")
	f.Add("abcdefghijklmnopqrstuvwxyz", "18446744073709551616")
	f.Fuzz(func(t *testing.T, id, seq string) {
		q := parseResume(id, seq)
		if id == "" && q.want {
			t.Fatal("resume asked for without a resume parameter")
		}
		if id != "" && !q.want {
			t.Fatalf("resume=%q not taken as a resume request", id)
		}
		if q.id != "" && (!validResumeID(q.id) || q.id != id) {
			t.Fatalf("resume=%q gave stream %q", id, q.id)
		}
		if q.id == "" && q.after != 0 {
			t.Fatal("seq kept without a stream")
		}
	})
}

// FuzzStamp checks that a numbered frame decodes to the same map plus
// seq, in both formats.
func FuzzStamp(f *testing.F) {
	f.Add(`{"type":"Message","content":"hi"}`, uint64(1))
	f.Add(`{}`, uint64(0))
	f.Add(`{"type":"Bulk","v":[{"type":"ChannelDelete","id":"x"}]}`, uint64(1<<40))
	f.Fuzz(func(t *testing.T, src string, n uint64) {
		var m map[string]any
		if json.Unmarshal([]byte(src), &m) != nil || m == nil {
			return
		}
		if _, ok := m["seq"]; ok {
			return
		}
		var e [16]byte
		out := extend(nil, []byte(src), false, 1, appendSeqEntry(e[:0], false, n))
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("stamped %q: %v", out, err)
		}
		if len(got) != len(m)+1 {
			t.Fatalf("stamped %q has %d keys, want %d", out, len(got), len(m)+1)
		}
		packed, err := msgpack.Marshal(m)
		if err != nil {
			return
		}
		out = extend(nil, packed, true, 1, appendSeqEntry(e[:0], true, n))
		var gotm map[string]any
		if err := msgpack.Unmarshal(out, &gotm); err != nil {
			t.Fatalf("stamped msgpack: %v", err)
		}
		seq, err := msgpack.Marshal(gotm["seq"])
		if err != nil || len(gotm) != len(m)+1 {
			t.Fatalf("msgpack keys %d, want %d", len(gotm), len(m)+1)
		}
		var back uint64
		if err := msgpack.Unmarshal(seq, &back); err != nil || back != n {
			t.Fatalf("msgpack seq = %d (%v), want %d", back, err, n)
		}
	})
}
