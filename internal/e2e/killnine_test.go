package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"ermine/internal/testbed"
)

// TestKillNineKeepsAcknowledgedMessages backs docs/configuration.md's durability
// claim for SQLite with the default synchronous = normal: messages are
// sent from several clients, the process is killed with SIGKILL while
// sends are in flight, and after a restart on the same data directory
// every message whose send was acknowledged (200) is there. Bounded: at
// most 2 s of sends before the kill.
func TestKillNineKeepsAcknowledgedMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the ermine binary")
	}
	bin := testbed.BuildErmine(t)
	data := t.TempDir()
	env := []string{"ERMINE_LIMITS_RATE_LIMITS=false", "ERMINE_LOG_LEVEL=warn"}
	n := startNode(t, bin, data, env)
	u := n.newUser(t, "Durable")
	var created struct {
		Channels []struct {
			ID string `json:"_id"`
		} `json:"channels"`
	}
	n.call(t, "POST", "/servers/create", u, map[string]any{"name": "durable"}, &created)
	channel := created.Channels[0].ID

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body, _ := json.Marshal(map[string]any{"content": fmt.Sprintf("worker %d message %d", w, i)})
				req, _ := http.NewRequest("POST", n.base+"/channels/"+channel+"/messages", bytes.NewReader(body))
				req.Header.Set("X-Session-Token", u.token)
				res, err := client.Do(req)
				if err != nil {
					return // killed
				}
				var m struct {
					ID string `json:"_id"`
				}
				err = json.NewDecoder(res.Body).Decode(&m)
				res.Body.Close()
				if res.StatusCode == http.StatusOK && err == nil && m.ID != "" {
					mu.Lock()
					acked = append(acked, m.ID)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	n.kill(t) // SIGKILL: no shutdown, no checkpoint
	close(stop)
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no message was acknowledged before the kill")
	}

	n = startNode(t, bin, data, env)
	stored := map[string]bool{}
	before := ""
	for range 1000 {
		path := "/channels/" + channel + "/messages?limit=100"
		if before != "" {
			path += "&before=" + before
		}
		var page []struct {
			ID string `json:"_id"`
		}
		n.call(t, "GET", path, u, nil, &page)
		for _, m := range page {
			stored[m.ID] = true
			before = m.ID
		}
		if len(page) < 100 {
			break
		}
	}
	lost := 0
	for _, id := range acked {
		if !stored[id] {
			lost++
		}
	}
	t.Logf("%d messages acknowledged before SIGKILL, %d stored after restart, %d lost", len(acked), len(stored), lost)
	if lost > 0 {
		t.Errorf("%d acknowledged messages lost to a process crash", lost)
	}
}
