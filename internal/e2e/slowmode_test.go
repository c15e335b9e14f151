package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"ermine/internal/testbed"
)

// TestTwoNodesShareSlowmode runs two ermine processes sharing PostgreSQL
// and a Redis bus, and checks that a slowmode window opened by a send
// through one node holds a send through the other.
func TestTwoNodesShareSlowmode(t *testing.T) {
	pgURL, redisURL := os.Getenv("ERMINE_TEST_POSTGRES"), os.Getenv("ERMINE_TEST_REDIS")
	if pgURL == "" || redisURL == "" {
		msg := "shared-slowmode test needs ERMINE_TEST_POSTGRES and ERMINE_TEST_REDIS (e.g. redis://127.0.0.1:6379/0)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; they must be set under CI")
		}
		t.Skip(msg)
	}
	db := testbed.Database(t, pgURL)
	bin := testbed.BuildErmine(t)
	env := []string{
		"ERMINE_DATABASE_URL=" + db,
		"ERMINE_BUS_KIND=redis",
		"ERMINE_BUS_URL=" + redisURL,
		"ERMINE_LIMITS_RATE_LIMITS=false",
		"ERMINE_PASSWORDS_MEMORY_KIB=64",
		"ERMINE_PASSWORDS_PASSES=1",
	}
	one := startNode(t, bin, t.TempDir(), env)
	two := startNode(t, bin, t.TempDir(), env)
	alice := one.newUser(t, "alice")
	bob := two.newUser(t, "bob")

	var created struct {
		Channels []struct {
			ID string `json:"_id"`
		} `json:"channels"`
	}
	one.call(t, "POST", "/servers/create", alice, map[string]any{"name": "Slow"}, &created)
	general := created.Channels[0].ID
	var invite struct {
		Code string `json:"_id"`
	}
	one.call(t, "POST", "/channels/"+general+"/invites", alice, nil, &invite)
	two.call(t, "POST", "/invites/"+invite.Code, bob, nil, nil)
	one.call(t, "PATCH", "/channels/"+general, alice, map[string]any{"slowmode": 60}, nil)

	send := func(n *node) (int, map[string]any) {
		b, _ := json.Marshal(map[string]any{"content": "hi"})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "POST", n.base+"/channels/"+general+"/messages", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Session-Token", bob.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		return res.StatusCode, m
	}
	if status, body := send(one); status != http.StatusOK {
		t.Fatalf("first send through node one = %d %v", status, body)
	}
	status, body := send(two)
	if status != http.StatusTooManyRequests || body["type"] != "InSlowmode" {
		t.Fatalf("second send through node two = %d %v, want 429 InSlowmode", status, body)
	}
	if ra, _ := body["retry_after"].(float64); ra < 1 || ra > 60 {
		t.Fatalf("retry_after = %v", body["retry_after"])
	}
}
