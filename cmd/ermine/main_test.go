package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigCommandMasksSecrets(t *testing.T) {
	var out, errOut bytes.Buffer
	getenv := env(map[string]string{"ERMINE_EMAIL_HOST": "smtp.example.com", "ERMINE_EMAIL_PASSWORD": "hunter2", "ERMINE_EMAIL_USERNAME": "ermine",
		"ERMINE_EMAIL_FROM": "ermine@example.com"})
	if err := run(t.Context(), []string{"--listen", "127.0.0.1:9999", "config"}, getenv, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, `listen = "127.0.0.1:9999"`) || !strings.Contains(s, "smtp.example.com") {
		t.Errorf("config output lacks settings:\n%s", s)
	}
	if strings.Contains(s, "hunter2") || !strings.Contains(s, "****") {
		t.Errorf("secret not masked:\n%s", s)
	}
}

func TestInvalidConfigNamesKey(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"config"}, env(map[string]string{"ERMINE_DATABASE_URL": "mysql://x"}), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "database.url") {
		t.Fatalf("error = %v, want one naming database.url", err)
	}
	err = run(t.Context(), []string{"frobnicate"}, env(nil), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "frobnicate") {
		t.Fatalf("unknown command error = %v", err)
	}
}

// TestServeAndShutdown starts the server as `ermine --listen ... --data ...`
// would, checks it answers, and stops it through its context.
func TestServeAndShutdown(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var out, errOut bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--listen", addr}, env(map[string]string{"ERMINE_DATA": t.TempDir()}), &out, &errOut)
	}()
	waitHealthy(t, addr)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop")
	}
}

// freeAddr is a loopback address free at the time of asking.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitHealthy waits for a server at addr to answer /healthz with 200.
func waitHealthy(t *testing.T, addr string) {
	t.Helper()
	var res *http.Response
	var err error
	for range 100 {
		if res, err = http.Get("http://" + addr + "/healthz"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("server did not come up: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/healthz = %d", res.StatusCode)
	}
}
