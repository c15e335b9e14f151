package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ermine/internal/testbed"
)

// threeNodeLease is the presence lease of the three-node test: short, so
// a dead node's users go offline within seconds.
const threeNodeLease = 3 * time.Second

// TestThreeNodes runs three ermine processes as one instance behind an
// imagined load balancer: one PostgreSQL database, a NATS bus, shared
// state in Redis and uploads in S3. Clients spread over the nodes see
// each other's messages, typing and presence; an upload through one node
// is served by another; a rate limit and a send nonce spent on one node
// hold on another. Then one node is killed with SIGKILL: its clients
// reconnect to another node and get a fresh Ready, every acknowledged
// message is there, and its users go offline for the others within the
// presence lease while users that moved stay online.
func TestThreeNodes(t *testing.T) {
	pgURL, natsURL := services(t)
	redisURL, s3URL := os.Getenv("ERMINE_TEST_REDIS"), os.Getenv("ERMINE_TEST_S3")
	if redisURL == "" || s3URL == "" {
		msg := "three-node test needs ERMINE_TEST_REDIS (e.g. redis://127.0.0.1:6379/0) and ERMINE_TEST_S3 " +
			"(e.g. http://key:secret@127.0.0.1:7070/bucket?region=us-east-1)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; they must be set under CI")
		}
		t.Skip(msg)
	}
	s3, err := url.Parse(s3URL)
	if err != nil {
		t.Fatalf("parse ERMINE_TEST_S3: %v", err)
	}
	secret, _ := s3.User.Password()
	region := s3.Query().Get("region")
	if region == "" {
		region = "us-east-1"
	}
	db := testbed.Database(t, pgURL)
	bin := testbed.BuildErmine(t)
	env := []string{
		"ERMINE_DATABASE_URL=" + db,
		"ERMINE_BUS_KIND=nats",
		"ERMINE_BUS_URL=" + natsURL,
		"ERMINE_SHARED_URL=" + redisURL,
		"ERMINE_SHARED_PREFIX=ermine-test:threenode:" + randomHex(t, 6) + ":",
		"ERMINE_SHARED_PRESENCE_LEASE=" + threeNodeLease.String(),
		"ERMINE_FILES_BACKEND=s3",
		"ERMINE_FILES_S3_ENDPOINT=" + s3.Host,
		"ERMINE_FILES_S3_BUCKET=" + strings.Trim(s3.Path, "/"),
		"ERMINE_FILES_S3_ACCESS_KEY=" + s3.User.Username(),
		"ERMINE_FILES_S3_SECRET_KEY=" + secret,
		"ERMINE_FILES_S3_REGION=" + region,
		"ERMINE_FILES_S3_USE_SSL=" + fmt.Sprint(s3.Scheme == "https"),
		// Rate limits stay on. The nodes trust loopback as a proxy, so
		// each user is counted by the address its requests name.
		"ERMINE_PUBLIC_TRUSTED_PROXIES=127.0.0.1",
		"ERMINE_PASSWORDS_MEMORY_KIB=64",
		"ERMINE_PASSWORDS_PASSES=1",
	}
	nodes := []*node{startNode(t, bin, t.TempDir(), env), startNode(t, bin, t.TempDir(), env), startNode(t, bin, t.TempDir(), env)}
	one, two, three := nodes[0], nodes[1], nodes[2]

	alice, bob, carol, dave := one.newUser(t, "alice"), two.newUser(t, "bob"),
		three.newUser(t, "carol"), three.newUser(t, "dave")
	var created struct {
		Server struct {
			ID string `json:"_id"`
		} `json:"server"`
		Channels []struct {
			ID string `json:"_id"`
		} `json:"channels"`
	}
	one.call(t, "POST", "/servers/create", alice, map[string]any{"name": "Three nodes"}, &created)
	serverID, general := created.Server.ID, created.Channels[0].ID
	var invite struct {
		Code string `json:"_id"`
	}
	one.call(t, "POST", "/channels/"+general+"/invites", alice, nil, &invite)
	two.call(t, "POST", "/invites/"+invite.Code, bob, nil, nil)
	three.call(t, "POST", "/invites/"+invite.Code, carol, nil, nil)
	three.call(t, "POST", "/invites/"+invite.Code, dave, nil, nil)

	aliceWS, bobWS := one.connect(t, alice), two.connect(t, bob)
	carolWS := three.connect(t, carol)
	three.connect(t, dave) // dave is only ever connected to node three
	sockets := []*socket{aliceWS, bobWS, carolWS}

	t.Run("presence across nodes", func(t *testing.T) {
		// Carol connected to node three after alice did to node one.
		aliceWS.waitFor(t, "UserUpdate", onlineUpdate(carol.id, true))
		// Node one, which holds no connection of carol's, answers that
		// she is online: it mirrors the other nodes' users.
		var u struct {
			Online bool `json:"online"`
		}
		one.call(t, "GET", "/users/"+carol.id, alice, nil, &u)
		if !u.Online {
			t.Error("node one shows carol, connected to node three, offline")
		}
		// Node two's member list shows everyone connected anywhere.
		var list struct {
			Users []struct {
				ID     string `json:"_id"`
				Online bool   `json:"online"`
			} `json:"users"`
		}
		two.call(t, "GET", "/servers/"+serverID+"/members", bob, nil, &list)
		online := map[string]bool{}
		for _, u := range list.Users {
			online[u.ID] = u.Online
		}
		for _, who := range []user{alice, bob, carol, dave} {
			if !online[who.id] {
				t.Errorf("node two's member list shows %s offline", who.id)
			}
		}
	})

	t.Run("messages reach every node", func(t *testing.T) {
		for i, from := range []struct {
			n *node
			u user
		}{{one, alice}, {two, bob}, {three, carol}} {
			var m struct {
				ID string `json:"_id"`
			}
			from.n.call(t, "POST", "/channels/"+general+"/messages", from.u,
				map[string]any{"content": fmt.Sprintf("hello %d", i)}, &m)
			for _, ws := range sockets {
				ws.waitFor(t, "Message", func(p packet) bool { return p.str("_id") == m.ID })
			}
		}
	})

	t.Run("typing reaches every node", func(t *testing.T) {
		bobWS.send(t, map[string]any{"type": "BeginTyping", "channel": general})
		for _, ws := range []*socket{aliceWS, carolWS} {
			ws.waitFor(t, "ChannelStartTyping", func(p packet) bool {
				return p.str("id") == general && p.str("user") == bob.id
			})
		}
	})

	t.Run("upload on one is served by another", func(t *testing.T) {
		id := one.upload(t, alice, "attachments", "three.png", pngImage(64, 48))
		// Attached through node two, served by all three alike.
		two.call(t, "POST", "/channels/"+general+"/messages", alice,
			map[string]any{"content": "a picture", "attachments": []string{id}}, nil)
		var first []byte
		for _, n := range nodes {
			res, err := http.Get(n.base + "/autumn/attachments/" + id)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/png" || len(got) == 0 {
				t.Fatalf("node %s serves the upload made on node one: %s %q, %d bytes",
					n.base, res.Status, res.Header.Get("Content-Type"), len(got))
			}
			if first == nil {
				first = got
			} else if !bytes.Equal(got, first) {
				t.Errorf("node %s serves other bytes than node one", n.base)
			}
		}
	})

	t.Run("a rate limit spent on one node holds on another", func(t *testing.T) {
		// PATCH /users/@me allows two edits a window per user.
		for _, n := range []*node{one, two} {
			if status, b := n.try(t, "PATCH", "/users/@me", bob, nil, map[string]any{"status": map[string]any{"text": "busy"}}); status != http.StatusOK {
				t.Fatalf("edit through %s = %d %s", n.base, status, b)
			}
		}
		status, b := three.try(t, "PATCH", "/users/@me", bob, nil, map[string]any{"status": map[string]any{"text": "late"}})
		if status != http.StatusTooManyRequests {
			t.Errorf("third edit through node three = %d %s, want 429", status, b)
		}
	})

	t.Run("a send nonce used on one node is refused on another", func(t *testing.T) {
		key := map[string]string{"Idempotency-Key": "three-" + randomHex(t, 8)}
		msg := map[string]any{"content": "once"}
		if status, b := one.try(t, "POST", "/channels/"+general+"/messages", alice, key, msg); status != http.StatusOK {
			t.Fatalf("first send = %d %s", status, b)
		}
		status, b := two.try(t, "POST", "/channels/"+general+"/messages", alice, key, msg)
		if status != http.StatusConflict || !strings.Contains(string(b), "DuplicateNonce") {
			t.Errorf("retry through node two = %d %s, want 409 DuplicateNonce", status, b)
		}
	})

	t.Run("a node killed with SIGKILL", func(t *testing.T) {
		// Carol sends through node three until it dies; every message it
		// acknowledged must be stored.
		var mu sync.Mutex
		var acked []string
		stop := make(chan struct{})
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var m struct {
					ID string `json:"_id"`
				}
				status, b := three.try(t, "POST", "/channels/"+general+"/messages", carol,
					map[string]string{"Idempotency-Key": fmt.Sprintf("burst-%d", i)}, map[string]any{"content": fmt.Sprint("burst ", i)})
				if status == http.StatusTooManyRequests {
					// Ten sends a window: wait, as a client does.
					time.Sleep(50 * time.Millisecond)
					continue
				}
				if status != http.StatusOK || json.Unmarshal(b, &m) != nil {
					return // the node is gone
				}
				mu.Lock()
				acked = append(acked, m.ID)
				mu.Unlock()
			}
		}()
		time.Sleep(300 * time.Millisecond)
		killed := time.Now()
		three.kill(t)
		close(stop)
		<-sent

		// Carol's client reconnects, through the load balancer, to node
		// one, and gets a fresh Ready with her server in it.
		ready := one.readyOf(t, carol)
		if !slices.Contains(ready.servers, serverID) {
			t.Errorf("carol's Ready on node one lacks the server %s: %v", serverID, ready.servers)
		}
		one.connect(t, carol)

		// Dave, only ever on node three, goes offline for alice within
		// the lease (plus a renewal period); carol, who moved, does not.
		aliceWS.waitFor(t, "UserUpdate", func(p packet) bool {
			if p.str("id") == carol.id && onlineUpdate(carol.id, false)(p) {
				t.Errorf("carol, reconnected to node one, was announced offline")
			}
			return onlineUpdate(dave.id, false)(p)
		})
		after := time.Since(killed)
		t.Logf("dave announced offline %s after node three was killed (lease %s)", after.Round(time.Millisecond), threeNodeLease)
		if after > 2*threeNodeLease {
			t.Errorf("dave went offline %s after the kill, more than twice the lease", after)
		}
		var u struct {
			Online bool `json:"online"`
		}
		two.call(t, "GET", "/users/"+carol.id, bob, nil, &u)
		if !u.Online {
			t.Error("carol, connected to node one, shows offline on node two")
		}
		two.call(t, "GET", "/users/"+dave.id, bob, nil, &u)
		if u.Online {
			t.Error("dave, whose node died, still shows online on node two")
		}

		// Nothing acknowledged is lost.
		mu.Lock()
		defer mu.Unlock()
		if len(acked) == 0 {
			t.Fatal("no message acknowledged before the kill")
		}
		stored := map[string]bool{}
		before := ""
		for range 100 {
			var page []struct {
				ID string `json:"_id"`
			}
			path := "/channels/" + general + "/messages?limit=100&sort=Latest"
			if before != "" {
				path += "&before=" + before
			}
			two.call(t, "GET", path, bob, nil, &page)
			for _, m := range page {
				stored[m.ID] = true
			}
			if len(page) < 100 {
				break
			}
			before = page[len(page)-1].ID
		}
		lost := 0
		for _, id := range acked {
			if !stored[id] {
				lost++
			}
		}
		t.Logf("%d messages acknowledged by node three before SIGKILL, %d lost", len(acked), lost)
		if lost > 0 {
			t.Errorf("%d acknowledged messages lost", lost)
		}
	})
}

// onlineUpdate matches a UserUpdate setting user's online flag to online.
func onlineUpdate(user string, online bool) func(packet) bool {
	return func(p packet) bool {
		data, _ := p["data"].(map[string]any)
		v, ok := data["online"].(bool)
		return p.str("id") == user && ok && v == online
	}
}

// ready is what the test reads of a Ready packet.
type ready struct {
	servers []string
}

// readyOf connects as u, reads Ready and disconnects.
func (n *node) readyOf(t *testing.T, u user) ready {
	t.Helper()
	ws := n.connect(t, u)
	defer ws.c.Close(websocket.StatusNormalClosure, "")
	b, err := json.Marshal(ws.ready)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Servers []struct {
			ID string `json:"_id"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var r ready
	for _, s := range p.Servers {
		r.servers = append(r.servers, s.ID)
	}
	return r
}

// try sends a JSON request as u with extra headers and returns the status
// and body, whatever they are.
func (n *node) try(t *testing.T, method, path string, u user, header map[string]string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, n.base+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-Token", u.token)
	if u.ip != "" {
		req.Header.Set("X-Forwarded-For", u.ip)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

// upload sends content to the file service's tag as u and returns the
// file's id.
func (n *node) upload(t *testing.T, u user, tag, name string, content []byte) string {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", n.base+"/autumn/"+tag, &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-Session-Token", u.token)
	req.Header.Set("X-Forwarded-For", u.ip)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out struct {
		ID string `json:"id"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal(b, &out) != nil || out.ID == "" {
		t.Fatalf("upload to node %s: %s %s", n.base, res.Status, b)
	}
	return out.ID
}
