// Command ermine-floor is the floor of the events gateway's benchmarks: a
// bare WebSocket server on gobwas/ws that does only what fan-out cannot
// do without. Each connection costs one goroutine blocked in read and no
// buffer; POST /publish sends its body as one text frame to every
// connection, with one write per connection. It authenticates nobody,
// keeps no state but the connection set, and exists so that
// `make compare` can show how far Ermine's gateway is from the cheapest
// possible server under the same load generator.
//
//	ermine-floor --listen 127.0.0.1:18900
//
// GET /ws upgrades; POST /publish broadcasts; GET / answers 200 once
// serving.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18900", "address to serve on")
	flag.Parse()
	f := &floor{conns: map[net.Conn]struct{}{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", f.upgrade)
	mux.HandleFunc("POST /publish", f.publish)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ermine-floor") })
	srv := &http.Server{Addr: *listen, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "ermine-floor:", err)
		os.Exit(1)
	}
}

// floor is the set of open connections.
type floor struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// maxPublish bounds a published body.
const maxPublish = 64 << 10

func (f *floor) upgrade(w http.ResponseWriter, r *http.Request) {
	conn, _, _, err := ws.UpgradeHTTP(r, w)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.conns[conn] = struct{}{}
	f.mu.Unlock()
	go func() {
		defer func() {
			f.mu.Lock()
			delete(f.conns, conn)
			f.mu.Unlock()
			conn.Close()
		}()
		for {
			// Answers pings and close frames; data is ignored.
			if _, _, err := wsutil.ReadClientData(conn); err != nil {
				return
			}
		}
	}()
}

func (f *floor) publish(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPublish+1))
	if err != nil || len(body) > maxPublish {
		http.Error(w, "body: at most 64 KB", http.StatusRequestEntityTooLarge)
		return
	}
	frame, err := ws.CompileFrame(ws.NewTextFrame(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f.mu.Lock()
	conns := make([]net.Conn, 0, len(f.conns))
	for c := range f.conns {
		conns = append(conns, c)
	}
	f.mu.Unlock()
	for _, c := range conns {
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write(frame); err != nil {
			c.Close()
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
