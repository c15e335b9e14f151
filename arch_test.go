package ermine_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowed lists, for each package of this module, the packages of this
// module it may import: the table of STYLE.md §2, row for row, plus the
// packages §2 does not name (marked "not in §2", each with why). There is
// no wildcard: a package missing from the table fails the test until it is
// given a row, and importing one's own subpackage needs a row like any
// other import. Test files are not checked, except that packages made for
// tests (apitest and the conformance suites) are imported only by tests.
var allowed = map[string][]string{
	"cmd/ermine": {"*"}, // main → run(): config, wiring, serve

	"internal/chat":              {},
	"internal/perm":              {chat},
	"internal/store":             {chat},
	"internal/store/sqlite":      {chat, store, sqlstore},
	"internal/store/postgres":    {chat, store, sqlstore},
	"internal/store/storetest":   {chat, store},
	"internal/pubsub":            {},
	"internal/pubsub/inproc":     {pubsub},
	"internal/pubsub/nats":       {pubsub},
	"internal/pubsub/redis":      {pubsub},
	"internal/pubsub/pubsubtest": {pubsub},
	"internal/blob":              {},
	"internal/blob/disk":         {blob},
	// app: chat, perm and the contracts it is given (store, pubsub, blob),
	// and the §2 services it calls (auth for passwords and tokens,
	// presence for online state).
	"internal/app":       {chat, perm, store, pubsub, blob, "internal/auth", "internal/presence", "internal/slowmode", "internal/nonce", event, "internal/app/emoji", "internal/voice", "internal/github", "internal/avatar", "internal/batch"},
	"internal/api":       {chat, app, ratelimit, "internal/api/contract"},
	"internal/gateway":   {chat, app, pubsub, event, ratelimit, "internal/resume"},
	"internal/files":     {chat, app, blob, ratelimit},
	"internal/auth":      {chat},
	"internal/ratelimit": {chat},
	"internal/presence":  {chat, pubsub},
	"internal/embeds":    {chat, "internal/egress"},
	// embedstest is a loopback site serving the pages the preview tests read.
	"internal/embeds/embedstest": {},
	// voicetest runs a real livekit-server for the voice tests.
	"internal/voice/voicetest": {},
	"internal/config":          {},
	"internal/apitest":         {"*"}, // the whole server, for tests only
	"internal/voice":           {chat},
	"internal/push":            {chat, "internal/egress"},
	"internal/github":          {chat},
	"internal/captcha":         {chat},
	"internal/avatar":          {},
	"internal/batch":           {},
	"internal/webapp":          {},
	// The Discord reader of the import pipeline (STYLE.md §2, internal/importer);
	// discordtest writes Discord exports for its tests and benchmarks.
	"internal/importer/discord":             {chat, store, "internal/importer"},
	"internal/importer/bulk":                {chat, store, blob, "internal/importer"},
	"internal/importer/discord/discordtest": {"internal/importer/discord"},
	// importer is the one import pipeline; each reader is a subpackage.
	"internal/importer":        {chat, store, blob},
	"internal/importer/revolt": {chat, store, blob, "internal/importer"},
	// revolttest writes Revolt/Stoat dumps for the import tests.
	"internal/importer/revolt/revolttest": {chat},
	// importertest is what the import benchmarks share: their size, a new
	// target on either store engine, a timed import.
	"internal/importer/importertest": {store, blob, "internal/blob/disk", "internal/store/sqlite", "internal/store/postgres",
		"internal/importer", "internal/testbed"},

	// Not in §2.
	// egress is the one rule for addresses reached on a user's behalf
	// (previews, the media proxy, push endpoints).
	"internal/egress": {},
	// sqlstore is the SQL both stores share (one file per collection).
	"internal/store/sqlstore": {chat, store},
	// event encodes an event once (JSON and msgpack) and names the topics
	// (§8: app encodes, the gateway fans out the bytes).
	"internal/event": {chat},
	// emoji is app's table of Unicode emoji names; api/contract embeds the
	// API contract the router and the tests share.
	"internal/app/emoji":    {},
	"internal/api/contract": {},
	// blob/s3 is the second blob store, blobtest the suite of both.
	"internal/blob/s3":       {blob},
	"internal/blob/blobtest": {blob},
	// limitertest is the conformance suite of the rate limiters.
	"internal/ratelimit/limitertest": {ratelimit},
	"internal/mail":                  {},
	// pushtest is a loopback Web Push service the push tests decrypt with.
	"internal/push/pushtest": {},
	// slowmode keeps the slowmode windows (in memory or Redis); its
	// conformance suite runs both.
	"internal/slowmode":              {chat},
	"internal/slowmode/slowmodetest": {chat, "internal/slowmode"},
	// nonce keeps the idempotency keys of recent sends (memory or Redis).
	"internal/nonce":                 {},
	"internal/nonce/noncetest":       {"internal/nonce"},
	"internal/presence/presencetest": {chat, "internal/presence"},
	// shared builds the state nodes share (presence, nonces, rate limits,
	// slowmode) in memory or in Redis; sharedtest is the one suite of it.
	"internal/shared": {"internal/presence", "internal/nonce", ratelimit, "internal/slowmode", pubsub, "internal/resume"},
	// resume keeps the held streams of resumable events connections
	// (memory or Redis); resumetest is the suite of both.
	"internal/resume":            {},
	"internal/resume/resumetest": {"internal/resume"},
	// redistest connects the Redis suites to ERMINE_TEST_REDIS.
	"internal/redistest": {},
	"internal/shared/sharedtest": {chat, "internal/shared", "internal/presence", "internal/presence/presencetest",
		"internal/nonce", "internal/nonce/noncetest", ratelimit, "internal/ratelimit/limitertest",
		"internal/slowmode", "internal/slowmode/slowmodetest", "internal/resume", "internal/resume/resumetest"},
	// server is the wiring cmd/ermine and the whole-server tests share;
	// wsload and e2e are tools and tests.
	"internal/server": {"*"},
	"internal/wsload": {},
	"internal/e2e":    {},
	// bench holds the measurement tools (STYLE.md §2, bench/): not the
	// product, which cmd/ermine alone is.
	"bench/load":   {"*"},
	"bench/fanout": {"*"},
	"bench/scale":  {"*"},
	// floor is the bare WebSocket server make compare measures Ermine
	// against; it imports nothing of Ermine.
	"bench/floor": {},
	// testbed starts, seeds and measures nodes for the tools and the
	// process-level tests (STYLE.md §2); only they import it.
	"internal/testbed": {"*"},
	"clients":          {},
	// web holds the web client's source and its Go test (no code).
	"web": {},
}

const (
	chat      = "internal/chat"
	perm      = "internal/perm"
	store     = "internal/store"
	sqlstore  = "internal/store/sqlstore"
	pubsub    = "internal/pubsub"
	blob      = "internal/blob"
	event     = "internal/event"
	app       = "internal/app"
	ratelimit = "internal/ratelimit"
)

// testOnly lists the packages made for tests.
var testOnly = []string{"internal/apitest", "internal/store/storetest", "internal/pubsub/pubsubtest",
	"internal/blob/blobtest", "internal/ratelimit/limitertest", "internal/embeds/embedstest",
	"internal/voice/voicetest", "internal/slowmode/slowmodetest", "internal/nonce/noncetest",
	"internal/presence/presencetest", "internal/shared/sharedtest", "internal/redistest",
	"internal/importer/importertest", "internal/resume/resumetest"}

// TestArchitecture checks every package imports only what its layer may.
func TestArchitecture(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(p.ImportPath, "ermine/")
		if pkg == "ermine" {
			continue
		}
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("%s has no row in arch_test.go's table: give it one (STYLE.md §2)", pkg)
			continue
		}
		for _, imp := range p.Imports {
			dep, ours := strings.CutPrefix(imp, "ermine/")
			if !ours {
				continue
			}
			if dep == "internal/testbed" && !strings.HasPrefix(pkg, "bench/") && !slices.Contains(testOnly, pkg) {
				t.Errorf("%s imports %s, which only the tools of bench/ and tests may", pkg, dep)
				continue
			}
			if slices.Contains(testOnly, dep) && !slices.Contains(testOnly, pkg) {
				t.Errorf("%s imports %s, which only tests may", pkg, dep)
				continue
			}
			if !slices.Contains(ok, "*") && !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s, which its layer may not", pkg, dep)
			}
		}
	}
}

// TestPackageComments checks every package has a package comment.
func TestPackageComments(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = dirs[filepath.Dir(path)] || hasDoc(t, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range dirs {
		if !ok {
			t.Errorf("package in %s has no package comment", dir)
		}
	}
}

func hasDoc(t *testing.T, path string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return f.Doc != nil && len(strings.TrimSpace(f.Doc.Text())) > 0
}

// TestArchitectureDocument checks docs/architecture.md's layout table has
// a row for every package of the table above, or for a package it sits
// under (a reader's test helpers go with the reader), so that the document
// a newcomer reads is the layout this test enforces.
func TestArchitectureDocument(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range allowed {
		found := false
		for p := pkg; p != "." && !found; p = filepath.Dir(p) {
			found = strings.Contains(string(doc), "\n| `"+p+"` |")
		}
		if !found {
			t.Errorf("docs/architecture.md's layout table has no row for %s (nor for a package it sits under)", pkg)
		}
	}
}

// appForbidden are the standard packages internal/app may not import: an
// HTTP client or server, mail, raw sockets and picture formats belong to
// the packages of the outside parties (captcha, voice, push, embeds, mail,
// avatar), which app calls through small interfaces.
var appForbidden = []string{"net", "net/http", "net/smtp", "net/mail", "crypto/tls", "mime/multipart",
	"image", "image/png", "image/jpeg", "image/gif", "image/color", "image/draw", "encoding/xml", "html", "html/template"}

// TestAppHoldsDecisionsOnly checks internal/app (its non-test files)
// declares no JSON-tagged wire type (wire types live in chat, outside
// formats in their own packages) and imports no HTTP client or outside
// format.
func TestAppHoldsDecisionsOnly(t *testing.T) {
	files, err := filepath.Glob("internal/app/*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); slices.Contains(appForbidden, p) {
				t.Errorf("%s imports %s: outside protocols and formats get their own package (docs/architecture.md)", path, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag != nil && strings.Contains(field.Tag.Value, "json:") {
					t.Errorf("%s: a struct with JSON tags (%s); wire types live in internal/chat", path, field.Tag.Value)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("checked only %d files of internal/app; the walk is broken", checked)
	}
}

// appFieldsMax is how many fields App may have: the dependencies every use
// case shares, its settings, and one group per feature, readable in one
// screen (docs/architecture.md, "The App").
const appFieldsMax = 12

// TestAppFields checks App stays readable in one screen: at most
// appFieldsMax fields. A feature's new parts go into its group.
func TestAppFields(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "internal/app/app.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	fields := -1
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "App" {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			t.Fatal("App is not a struct")
		}
		fields = 0
		for _, field := range st.Fields.List {
			fields += max(len(field.Names), 1)
		}
		return false
	})
	switch {
	case fields < 0:
		t.Fatal("internal/app/app.go declares no App type; the check is broken")
	case fields > appFieldsMax:
		t.Errorf("App has %d fields, more than %d: group a feature's parts into its own struct (docs/architecture.md)", fields, appFieldsMax)
	}
}
