package gateway_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/test"

	"ermine/internal/gateway"
	"ermine/internal/pubsub/nats"
)

// TestTwoNodesOverNATS runs two gateways sharing a store and a NATS bus:
// what a user does on one node reaches a user connected to the other.
func TestTwoNodesOverNATS(t *testing.T) {
	t.Parallel()
	opts := test.DefaultTestOptions
	opts.Port = -1
	srv := test.RunServer(&opts)
	t.Cleanup(srv.Shutdown)
	st := newStore(t)
	prefix := "ermt." + strconv.FormatInt(time.Now().UnixNano(), 36) + "."
	var nodes [2]*harness
	for i := range nodes {
		bus, err := nats.Open(srv.ClientURL(), nats.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bus.Close() })
		nodes[i] = newNode(t, st, bus, gateway.Options{})
	}
	one, two := nodes[0], nodes[1]
	alice, aliceToken := one.user("alice")
	bob, bobToken := one.user("bob")
	s, general := one.server(alice.ID)
	one.join(s.ID, bob.ID)

	b, _ := two.connect(t, bobToken, "msgpack")
	b.expect("UserUpdate") // own presence, through NATS
	a, _ := one.connect(t, aliceToken, "json")
	a.expect("UserUpdate")
	if p := b.expect("UserUpdate"); str(p, "id") != string(alice.ID) {
		t.Fatalf("bob got %v, want alice online", p)
	}

	a.send(map[string]any{"type": "BeginTyping", "channel": string(general.ID)})
	a.expect("ChannelStartTyping")
	if p := b.expect("ChannelStartTyping"); str(p, "user") != string(alice.ID) {
		t.Errorf("bob got %v", p)
	}
	message(one, general.ID, alice.ID, "across")
	if p := b.expect("Message"); str(p, "content") != "across" {
		t.Errorf("bob got %v", p)
	}
	a.expect("Message")
}
