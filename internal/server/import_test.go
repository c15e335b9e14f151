package server_test

import (
	"log/slog"
	"strings"
	"testing"

	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/server"
	"ermine/internal/store"
)

// TestRefusesUnfinishedImport checks the server will not serve an
// instance an import has not finished, and says how to finish it.
func TestRefusesUnfinishedImport(t *testing.T) {
	ctx := t.Context()
	cfg := localConfig(t)
	st := openStore(t, cfg)
	cmd := "ermine import revolt --dump /srv/dump"
	if err := st.SetImport(ctx, &store.ImportState{Source: "revolt", Command: cmd, Started: chat.Now(), Done: map[string]int64{}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	srv, err := server.Start(ctx, cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		_ = srv.Shutdown(ctx)
		t.Fatal("server started on an unfinished import")
	}
	if !strings.Contains(err.Error(), "unfinished") || !strings.Contains(err.Error(), cmd) {
		t.Errorf("error = %v; want it to say the import is unfinished and how to resume", err)
	}
}

// localConfig is the embedded defaults on a fresh data directory,
// listening on a free loopback port.
func localConfig(t *testing.T) config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Listen = "127.0.0.1:0"
	return cfg
}

// openStore opens cfg's store; the test closes it.
func openStore(t *testing.T, cfg config.Config) store.Store {
	t.Helper()
	st, err := server.OpenStore(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
