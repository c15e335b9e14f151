// Package server assembles one Ermine node from its configuration: it
// opens the store, the event bus and the rate limiter the configuration
// names, builds the app and the transports, and serves them on one port.
// cmd/ermine and the whole-server tests are its only users.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	goredis "github.com/redis/go-redis/v9"

	"ermine/internal/api"
	"ermine/internal/app"
	"ermine/internal/auth"
	"ermine/internal/blob"
	"ermine/internal/blob/disk"
	"ermine/internal/blob/s3"
	"ermine/internal/captcha"
	"ermine/internal/chat"
	"ermine/internal/config"
	"ermine/internal/embeds"
	"ermine/internal/files"
	"ermine/internal/gateway"
	"ermine/internal/mail"
	"ermine/internal/pubsub"
	"ermine/internal/pubsub/inproc"
	"ermine/internal/pubsub/nats"
	"ermine/internal/pubsub/redis"
	"ermine/internal/push"
	"ermine/internal/ratelimit"
	"ermine/internal/shared"
	"ermine/internal/store"
	"ermine/internal/store/postgres"
	"ermine/internal/store/sqlite"
	"ermine/internal/voice"
	"ermine/internal/webapp"
)

// Version, when set, is Ermine's version as a release build gives it
// to the linker (go build -ldflags "-X ermine/internal/server.Version=0.2.0").
var Version string

// treeVersion is the version of this source tree; CHANGELOG.md's newest
// section is about it.
const treeVersion = "0.2.0-dev"

// ReleaseVersion is Ermine's version, reported by GET /, `ermine
// version` and the file service: the one the release build set
// (Version), else the module version Go recorded (go install at a tag),
// else the source tree's.
func ReleaseVersion() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	return treeVersion
}

// Server is a running node.
type Server struct {
	cfg      config.Config
	log      *slog.Logger
	listener net.Listener
	http     *http.Server
	// metricsAddr is where [metrics] listen was bound, or "".
	metricsAddr string
	profiling   bool // [metrics] profiling: /debug/pprof/ beside /metrics
	store       store.Store
	bus         pubsub.Bus
	gateway     *gateway.Gateway
	closers     []func() error // run in reverse order on shutdown
	done        chan error
	// App is the node's use cases, for tests that set up state directly.
	App *app.App
	// Store is the node's store, for tests that set up state directly.
	Store store.Store
	// Bus is the node's event bus, for tests that watch events.
	Bus pubsub.Bus
}

// Start opens everything the configuration names and starts serving.
// It returns once the listener is bound; Addr tells where.
func Start(ctx context.Context, cfg config.Config, log *slog.Logger) (srv *Server, err error) {
	s := &Server{cfg: cfg, log: log, done: make(chan error, 1)}
	defer func() {
		if err != nil {
			s.close()
		}
	}()

	// Held while serving: ermine restore refuses to swap the database
	// under a running server.
	release, err := LockDataDir(cfg.Data, false)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, release)
	releaseServing, err := holdServing(cfg.Data)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, releaseServing)
	if s.store, err = OpenStore(ctx, cfg); err != nil {
		return nil, err
	}
	s.Store = s.store
	s.closers = append(s.closers, s.store.Close)
	if w, ok := s.store.(poolWarmer); ok && cfg.Database.URL != "" {
		// The first requests should not wait for new PostgreSQL backends.
		if err := w.Warm(ctx, postgres.Conns); err != nil {
			log.Warn("postgres: the connection pool was not all opened at start", "err", err)
		}
	}
	if err := checkImport(ctx, s.store); err != nil {
		return nil, err
	}

	if s.bus, err = openBus(cfg); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.bus.Close)
	s.Bus = s.bus

	state, err := openShared(ctx, cfg, s.bus, log)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, state.Close)
	var limiter ratelimit.Limiter
	if cfg.Limits.RateLimits { // nil is no limit
		limiter = state.Limiter
	}

	blobs, err := OpenBlobs(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if w := diskUploadsWarning(cfg); w != "" {
		log.Warn(w)
	}

	s.listener, err = listen(ctx, cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	s.closers = append(s.closers, func() error {
		if err := s.listener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	})
	public := cfg.PublicURLs(s.listener.Addr().String())

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	deps := app.Deps{Store: s.store, Bus: s.bus, Blobs: blobs, Log: log,
		Presence: state.Presence, Nonces: state.Nonces, Slowmodes: state.Slowmodes,
		Passwords: passwordHasher(cfg.Passwords), Settings: appSettings(cfg, public)}
	if cfg.Email.Enabled() {
		m, err := mail.New(mail.Config{Host: cfg.Email.Host, Port: cfg.Email.Port, Security: cfg.Email.TLS,
			Username: cfg.Email.Username, Password: cfg.Email.Password, From: cfg.Email.From})
		if err != nil {
			return nil, err
		}
		deps.Mailer = m
	}
	if cfg.Captcha.Enabled() {
		deps.Captcha = &captcha.HCaptcha{Secret: cfg.Captcha.HCaptchaSecret, SiteKey: cfg.Captcha.HCaptchaKey,
			VerifyURL: cfg.Captcha.VerifyURL}
	}
	if cfg.Push.Enabled() || cfg.Push.FCM.Enabled() || cfg.Push.APN.Enabled() {
		p, err := s.startPush(cfg, public.AppURL)
		if err != nil {
			return nil, err
		}
		deps.Pusher = p
	}
	if cfg.Voice.Enabled && len(cfg.Voice.Nodes) > 0 {
		nodes := make([]voice.Node, 0, len(cfg.Voice.Nodes))
		for _, n := range cfg.Voice.Nodes {
			nodes = append(nodes, voice.Node{Name: n.Name, URL: n.URL, PublicURL: n.PublicURL,
				APIKey: n.APIKey, APISecret: n.APISecret})
		}
		deps.Voice = voice.New(nodes, nil)
	}
	ffprobe, err := exec.LookPath("ffprobe")
	if err != nil {
		ffprobe = ""
		log.Info("ffprobe not found: video uploads are described as plain files")
	}
	var previews *embeds.Service
	if e := cfg.Embeds; e.Enabled {
		previews = embeds.New(embeds.Options{
			Client: embeds.NewClient(embeds.ClientOptions{UserAgent: e.UserAgent,
				AllowedPrivateHosts: e.AllowedPrivateHosts, BlockedDomains: e.BlockedDomains}),
			HTMLBytes: e.HTMLBytes, MediaBytes: e.MediaBytes, YouTubeOEmbed: e.YouTubeOEmbed,
			ProxyCacheEntries: e.ProxyCacheEntries, FFprobe: ffprobe, Log: log,
		})
		deps.Previews = previews
	}
	s.App = app.New(deps)
	s.startDeletions(ctx)
	// Whatever this node's bus, it takes the events an admin command
	// left in the store: a command run with another bus setting than the
	// nodes' still reaches them (published on this node's bus, so every
	// node of a shared bus hears them once).
	s.startRelay(ctx)
	s.closers = append(s.closers, s.App.Close) // before the store and bus close
	apiHandler := api.New(api.Options{
		App: s.App, Limiter: limiter, Log: log, Registry: reg,
		Root: rootObject(cfg, public), APIURL: public.APIURL, BodyLimit: cfg.Limits.BodyBytes,
	})

	// The events node this process replaces, if it served on this data
	// directory before and has stopped (datadir.go, nodeName).
	node, replaces, err := claimNode(cfg.Data)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, node.close)
	gw, err := gateway.New(gateway.Options{App: s.App, Bus: s.bus, Log: log,
		Keepalive: cfg.Gateway.Keepalive, SendQueue: cfg.Gateway.SendQueue, MaxPacket: cfg.Gateway.MaxPacket,
		SendBuffer:  cfg.Gateway.SendBuffer,
		AuthTimeout: cfg.Gateway.AuthTimeout, UnauthenticatedPerIP: cfg.Gateway.UnauthenticatedPerIP,
		Streams: state.Streams, Replaces: replaces})
	if err != nil {
		return nil, err
	}
	s.gateway = gw
	if err := node.write(gw.Node()); err != nil {
		log.Warn("write the events node id", "err", err)
	}

	// Upload bodies are spooled on the data disk, not a RAM-backed /tmp.
	spool := filepath.Join(cfg.Data, "tmp")
	if err := os.MkdirAll(spool, 0o750); err != nil {
		return nil, fmt.Errorf("create upload spool directory: %w", err)
	}
	fileService := http.StripPrefix("/autumn", files.New(files.Options{
		App: s.App, Limiter: limiter, Log: log, Version: ReleaseVersion(), FFprobe: ffprobe, TempDir: spool,
	}))

	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	mux := http.NewServeMux()
	// Metrics describe every route's traffic and the process: on the
	// public port only behind a bearer token, else on [metrics] listen.
	if cfg.Metrics.Token != "" {
		mux.Handle("GET /metrics", bearer(cfg.Metrics.Token, metrics))
	}
	for _, path := range eventsPaths {
		mux.Handle(path, gw)
	}
	mux.Handle("/autumn/", fileService)
	mux.Handle("/autumn", fileService)
	if previews != nil {
		january := http.StripPrefix("/january", previews.Handler(ReleaseVersion(), 4*cfg.Embeds.Workers))
		mux.Handle("/january/", january)
		// Fetching other sites for anyone who asks: metered per address,
		// so the instance is no free, anonymous fetcher of the web.
		mux.Handle("GET /january/embed", perAddress(limiter, januaryEmbedBucket, januaryEmbedLimit, january))
		mux.Handle("GET /january/proxy", perAddress(limiter, januaryProxyBucket, januaryProxyLimit, january))
	}
	webOpts := webapp.Options{APIURL: public.APIURL, EventsURL: public.EventsURL, FilesURL: public.FilesURL,
		Captcha: cfg.Captcha.Enabled()}
	if cfg.Embeds.Enabled {
		webOpts.ProxyURL = public.EmbedsURL
	}
	for _, n := range cfg.Voice.Nodes {
		webOpts.VoiceURLs = append(webOpts.VoiceURLs, n.PublicURL)
	}
	web, err := webapp.New(webOpts)
	if err != nil {
		return nil, fmt.Errorf("web client: %w", err)
	}
	mux.Handle(webapp.Prefix, web)
	mux.Handle("GET "+strings.TrimSuffix(webapp.Prefix, "/"), web)
	mux.HandleFunc("GET /invite/{code}", web.Page)
	mux.Handle("/", rootHandler(apiHandler, web))

	if cfg.Metrics.Listen != "" {
		s.profiling = cfg.Metrics.Profiling
		if err := s.serveMetrics(ctx, cfg.Metrics.Listen, metrics); err != nil {
			return nil, err
		}
	}

	s.http = &http.Server{
		Handler:           behindProxies(cfg.Public.TrustedPrefixes(), limitURL(mux)),
		MaxHeaderBytes:    maxHeaderBytes,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	lane := &eventsLane{gw: gw, trusted: cfg.Public.TrustedPrefixes()}
	go func() { s.done <- s.http.Serve(jsonErrors{Listener: s.listener, lane: lane}) }()
	s.startSweeper(ctx, cfg.Files.UnusedFileTTL)
	s.startEphemeralPrune(ctx, time.Duration(cfg.Limits.EphemeralDelay)*time.Second)
	log.Info("ermine is serving", "api", public.APIURL, "events", public.EventsURL, "files", public.FilesURL,
		"store", storeName(cfg), "bus", cfg.Bus.Kind)
	return s, nil
}

// rootHandler gives a browser asking for / (Accept: text/html) the web
// client's page and everything else to the API, so client libraries keep
// getting the root object.
func rootHandler(api http.Handler, web *webapp.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && webapp.WantsPage(r) {
			web.Page(w, r)
			return
		}
		w.Header().Add("Vary", "Accept")
		api.ServeHTTP(w, r)
	})
}

// listen listens on addr for the API, the events WebSocket and the
// files. Accepted connections get no TCP keep-alive probes: idle HTTP
// connections end with the server's IdleTimeout and events connections
// with the gateway's own keep-alive, so the probes would only add four
// setsockopt calls to every accepted connection.
func listen(ctx context.Context, addr string) (net.Listener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return yielding{l}, nil
}

// yielding is a listener whose Accept yields the processor
// (runtime.Gosched) before it accepts. net/http starts a goroutine for
// every accepted connection, which the runtime runs next on the accept
// loop's P, pushing the one started before to the tail of the P's run
// queue; an accept loop that does not block (thousands of clients
// reconnecting at once, the listen backlog full) keeps its P for a whole
// time slice and queues a thousand new connections, each to read and
// upgrade, ahead of any API request that becomes runnable afterwards.
// Yielding sends the loop to the tail of the global run queue, where the
// runtime puts goroutines whose socket became readable when every P is
// busy (an API request in a storm): it starts one connection per turn,
// after the requests already waiting. Idle, the yield costs nothing: no
// other goroutine wants the P.
type yielding struct{ net.Listener }

func (l yielding) Accept() (net.Conn, error) {
	runtime.Gosched()
	return l.Listener.Accept()
}

// serveMetrics serves GET /metrics on its own address until shutdown.
func (s *Server) serveMetrics(ctx context.Context, addr string, metrics http.Handler) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics.listen %s: %w", addr, err)
	}
	s.metricsAddr = l.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	if s.profiling {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics listener", "err", err)
		}
	}()
	s.closers = append(s.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(ctx)
	})
	s.log.Info("metrics are served", "url", "http://"+s.metricsAddr+"/metrics")
	return nil
}

// MetricsAddr is the address of [metrics] listen once bound, or "".
func (s *Server) MetricsAddr() string { return s.metricsAddr }

// deletionInterval is how often scheduled account deletions are carried out.
const deletionInterval = time.Hour

// startDeletions carries out due account deletions now and every
// deletionInterval until the server shuts down.
func (s *Server) startDeletions(ctx context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(deletionInterval)
		defer t.Stop()
		for {
			if n, err := s.App.RunDueDeletions(ctx); err != nil {
				s.log.Error("account deletions", "deleted", n, "err", err)
			} else if n > 0 {
				s.log.Info("account deletions", "deleted", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	s.closers = append(s.closers, func() error {
		cancel()
		<-done
		return nil
	})
}

// Addr is the address the node listens on.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// Done reports the error that stopped serving (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting requests, waits for the ones in flight until
// ctx ends, and closes the bus and the store cleanly.
func (s *Server) Shutdown(ctx context.Context) error {
	// Hijacked WebSocket connections are not tracked by http.Server:
	// the gateway closes them with a going-away frame so clients reconnect.
	gwErr := s.gateway.Shutdown(ctx)
	err := s.http.Shutdown(ctx)
	return errors.Join(gwErr, err, s.close())
}

func (s *Server) close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}

func storeName(cfg config.Config) string {
	if cfg.Database.URL == "" {
		return "sqlite " + cfg.SQLitePath()
	}
	return "postgres"
}

// poolWarmer is a store that can open its connection pool ahead of
// requests (the PostgreSQL store).
type poolWarmer interface {
	Warm(ctx context.Context, n int) error
}

// OpenStore opens (and migrates) the store the configuration names, for
// the server and for admin commands.
func OpenStore(ctx context.Context, cfg config.Config) (store.Store, error) {
	if cfg.Database.URL == "" {
		if err := checkDataDir(cfg.Data); err != nil {
			return nil, err
		}
		if err := checkDatabaseWritable(cfg.SQLitePath()); err != nil {
			return nil, err
		}
		return sqlite.OpenWith(ctx, cfg.SQLitePath(), sqlite.Options{Synchronous: cfg.Database.SQLiteSynchronous})
	}
	return postgres.Open(ctx, cfg.Database.URL)
}

func openBus(cfg config.Config) (pubsub.Bus, error) {
	switch cfg.Bus.Kind {
	case config.BusNATS:
		return nats.Open(cfg.Bus.URL)
	case config.BusRedis:
		return redis.Open(cfg.Bus.URL)
	}
	return inproc.New(0), nil
}

// openShared opens the state nodes share outside the database: in
// Redis when [shared] url (or a Redis bus) names one, else in this
// process. Several nodes on a NATS bus without it each keep their own,
// which start warns about.
func openShared(ctx context.Context, cfg config.Config, bus pubsub.Bus, log *slog.Logger) (*shared.State, error) {
	url := cfg.SharedRedisURL()
	if url == "" {
		if cfg.Bus.Kind != config.BusInproc {
			log.Warn("presence, send nonces, rate limits, slowmode and resumable event streams are kept per node: " +
				"set [shared] url (ERMINE_SHARED_URL) to a Redis so several nodes agree on them")
		}
		return shared.Memory(), nil
	}
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("shared.url: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	state, err := shared.Redis(ctx, goredis.NewClient(opt), shared.RedisOptions{Bus: bus,
		Prefix: cfg.Shared.Prefix, Lease: cfg.Shared.PresenceLease, Log: log})
	if err != nil {
		return nil, fmt.Errorf("shared.url: %w", err)
	}
	return state, nil
}

// The january fetch routes' limits per client address, in
// januaryWindow (the web client asks /proxy for every image of the
// previews it shows, so that one is wider).
const (
	januaryEmbedBucket = "january_embed"
	januaryEmbedLimit  = 30
	januaryProxyBucket = "january_proxy"
	januaryProxyLimit  = 120
	januaryWindow      = 10 * time.Second
)

// perAddress counts requests per client address (the proxy's client once
// trusted_proxies names the proxy) in the bucket, and answers 429
// {"retry_after": ms} with the rate-limit headers beyond limit per
// januaryWindow, as the API's limits do. With rate limits off (a nil
// limiter) it is h.
func perAddress(l ratelimit.Limiter, bucket string, limit int, h http.Handler) http.Handler {
	if l == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ratelimit.Key(ratelimit.Host(r.RemoteAddr), bucket, "")
		res, err := l.Take(r.Context(), key, limit, januaryWindow)
		if err == nil && !ratelimit.Answer(w, key, res) {
			return
		}
		// A limiter that cannot answer (Redis down) lets the request
		// through rather than taking previews down with it.
		h.ServeHTTP(w, r)
	})
}

// diskUploadsWarning is what start says when the configuration is that
// of several nodes (a shared bus) but uploads stay on this node's disk:
// a file uploaded through one node would be 404 on the others.
func diskUploadsWarning(cfg config.Config) string {
	if cfg.Files.Backend == config.FilesS3 || cfg.Bus.Kind == config.BusInproc {
		return ""
	}
	return "uploads are kept on this node's disk (" + filepath.Join(cfg.Data, "files") + ") but the " + cfg.Bus.Kind +
		" bus is for several nodes: a file uploaded through one node is not found on the others. " +
		"Use [files] backend = \"s3\", or make that directory the same shared storage on every node"
}

// OpenBlobs opens the store for uploads: a directory under the data
// directory, or an S3 bucket.
func OpenBlobs(ctx context.Context, cfg config.Config) (blob.Store, error) {
	if cfg.Files.Backend == config.FilesS3 {
		c := cfg.Files.S3
		return s3.Open(ctx, s3.Config{Endpoint: c.Endpoint, Bucket: c.Bucket, AccessKey: c.AccessKey,
			SecretKey: c.SecretKey, Region: c.Region, UseSSL: c.UseSSL})
	}
	return disk.Open(filepath.Join(cfg.Data, "files"))
}

// startEphemeralPrune deletes expired ephemeral messages in the
// background until the server shuts down: every 90 seconds, as the
// reference's task does, or more often when they live shorter.
func (s *Server) startEphemeralPrune(ctx context.Context, delay time.Duration) {
	s.every(ctx, min(90*time.Second, max(delay/4, time.Second)), func(ctx context.Context) {
		if n, err := s.App.PruneEphemeral(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("prune ephemeral messages", "err", err)
		} else if n > 0 {
			s.log.Info("pruned ephemeral messages", "deleted", n)
		}
	})
}

// startSweeper removes unused and released files in the background
// until the server shuts down: every minute, or more often when uploads
// expire sooner.
func (s *Server) startSweeper(ctx context.Context, ttl time.Duration) {
	s.every(ctx, min(time.Minute, max(ttl/4, time.Second)), func(ctx context.Context) {
		if n, err := s.App.SweepFiles(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("sweep files", "err", err)
		} else if n > 0 {
			s.log.Info("swept files", "removed", n)
		}
	})
}

// every runs task each interval in the background until the server
// shuts down; closing waits for a run under way to end.
func (s *Server) every(ctx context.Context, interval time.Duration, task func(context.Context)) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				task(ctx)
			}
		}
	}()
	s.closers = append(s.closers, func() error {
		cancel()
		<-done
		return nil
	})
}

// appSettings are the app's plain values from the configuration. A
// feature's values (mail retries, the files address of notifications,
// previews per message) matter only when the server gives the app that
// feature's dependency.
func appSettings(cfg config.Config, public config.Public) app.Settings {
	return app.Settings{Limits: appLimits(cfg), AppURL: public.AppURL, FilesURL: public.FilesURL,
		InviteOnly: cfg.Registration.InviteOnly, WebhooksOff: !cfg.Webhooks.Enabled,
		MailRetry: cfg.Email.RetryDelay, PreviewLinks: cfg.Embeds.Links, PreviewWorkers: cfg.Embeds.Workers,
		Instance: app.Instance{Version: ReleaseVersion(), Store: storeName(cfg), Bus: cfg.Bus.Kind, Started: time.Now(),
			DiskUploads: cfg.Files.Backend != config.FilesS3}}
}

func appLimits(cfg config.Config) app.Limits {
	l := cfg.Limits
	user := func(u config.UserLimits) app.UserLimits {
		return app.UserLimits{OutgoingFriendRequests: u.OutgoingFriendRequests, Bots: u.Bots,
			MessageLength: u.MessageLength, MessageAttachments: u.MessageAttachments, Servers: u.Servers}
	}
	return app.Limits{
		NewUserAge: time.Duration(l.NewUserHours) * time.Hour,
		Default:    user(l.Default), NewUser: user(l.NewUser),
		GroupSize: l.GroupSize, MessageEmbeds: l.MessageEmbeds, MessageReplies: l.MessageReplies,
		MessageReactions: l.MessageReactions, ServerEmoji: l.ServerEmoji, ServerRoles: l.ServerRoles,
		ServerChannels: l.ServerChannels, RestrictServerCreation: l.RestrictServerCreation,
		Uploads: map[string]int64{
			chat.TagAttachments: cfg.Files.Limits.Attachments, chat.TagAvatars: cfg.Files.Limits.Avatars,
			chat.TagBackgrounds: cfg.Files.Limits.Backgrounds, chat.TagIcons: cfg.Files.Limits.Icons,
			chat.TagBanners: cfg.Files.Limits.Banners, chat.TagEmojis: cfg.Files.Limits.Emojis,
		},
		UnusedFileTTL:  cfg.Files.UnusedFileTTL,
		EphemeralDelay: time.Duration(l.EphemeralDelay) * time.Second,
	}
}

// passwordHasher hashes with the configured cost.
func passwordHasher(p config.Passwords) *auth.Hasher {
	params := auth.DefaultParams()
	params.Memory, params.Time = uint32(p.MemoryKiB), uint32(p.Passes)
	return auth.NewHasher(params, p.Concurrency)
}

// apiVersion is the API version GET / reports (as revolt and stoat).
const apiVersion = "0.8.9"

// rootObject builds GET / from the configuration and public URLs.
func rootObject(cfg config.Config, public config.Public) api.Root {
	nodes := []api.VoiceNode{}
	for _, n := range cfg.Voice.Nodes {
		if !cfg.Voice.Enabled {
			break
		}
		nodes = append(nodes, api.VoiceNode{Name: n.Name, Lat: n.Lat, Lon: n.Lon, PublicURL: n.PublicURL})
	}
	return api.Root{
		Revolt: apiVersion,
		Stoat:  apiVersion,
		Features: api.Features{
			Captcha:    api.CaptchaFeature{Enabled: cfg.Captcha.Enabled(), Key: cfg.Captcha.HCaptchaKey},
			Email:      cfg.Email.Enabled(),
			InviteOnly: cfg.Registration.InviteOnly,
			Autumn:     api.Feature{Enabled: true, URL: public.FilesURL},
			// Link previews and the image proxy (the reference's january).
			January: api.Feature{Enabled: cfg.Embeds.Enabled, URL: januaryURL(cfg, public)},
			LiveKit: api.VoiceFeature{Enabled: cfg.Voice.Enabled, Nodes: nodes},
			Limits:  limitsFeature(cfg),
			LegalLinks: api.LegalLinks{TermsOfService: link(cfg.Legal.TermsOfService),
				PrivacyPolicy: link(cfg.Legal.PrivacyPolicy), Guidelines: link(cfg.Legal.Guidelines)},
		},
		WS:    public.EventsURL,
		App:   public.AppURL,
		VAPID: cfg.Push.VAPIDPublicKey,
		Build: Build(),
	}
}

// link is a configured URL as the root object sends it: null when empty.
func link(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Video limits of the reference's defaults, which Ermine's voice clients
// are told; only voice_quality and video are configurable.
var (
	videoResolution  = [2]int{1080, 720}
	videoAspectRatio = [2]float64{0.3, 2.5}
)

// limitsFeature is features.limits of the root object: the configured
// limits as clients see them.
func limitsFeature(cfg config.Config) api.LimitsFeature {
	l, f := cfg.Limits, cfg.Files.Limits
	uploads := map[string]int64{
		chat.TagAttachments: f.Attachments, chat.TagAvatars: f.Avatars, chat.TagBackgrounds: f.Backgrounds,
		chat.TagIcons: f.Icons, chat.TagBanners: f.Banners, chat.TagEmojis: f.Emojis,
	}
	user := func(u config.UserLimits) api.UserLimits {
		return api.UserLimits{OutgoingFriendRequests: u.OutgoingFriendRequests, Bots: u.Bots,
			MessageLength: u.MessageLength, MessageAttachments: u.MessageAttachments, Servers: u.Servers,
			VoiceQuality: u.VoiceQuality, Video: u.Video, VideoResolution: videoResolution,
			VideoAspectRatio: videoAspectRatio, FileUploadSizeLimits: uploads}
	}
	return api.LimitsFeature{
		Global: api.GlobalLimits{GroupSize: l.GroupSize, MessageEmbeds: l.MessageEmbeds,
			MessageReplies: l.MessageReplies, MessageReactions: l.MessageReactions, ServerEmoji: l.ServerEmoji,
			ServerRoles: l.ServerRoles, ServerChannels: l.ServerChannels, BodyLimitSize: l.BodyBytes,
			RestrictServerCreation: l.RestrictServerCreation, NewUserHours: l.NewUserHours},
		NewUser: user(l.NewUser),
		Default: user(l.Default),
	}
}

// januaryURL is the advertised base of the preview and proxy routes, ""
// when they are off.
func januaryURL(cfg config.Config, public config.Public) string {
	if !cfg.Embeds.Enabled {
		return ""
	}
	return public.EmbedsURL
}

// Commit and CommitTime name the commit a binary was built from when the
// build has no version control facts of its own (a container build of a
// source tree without .git): go build -ldflags "-X
// ermine/internal/server.Commit=... -X ermine/internal/server.CommitTime=...".
var Commit, CommitTime string

// Build is what the root object's build says: the version, and the
// commit the Go toolchain stamped (go build in a clone) or the linker
// was given (Commit). A build of a modified tree says so with "-dirty".
func Build() api.BuildInfo {
	b := api.BuildInfo{CommitSHA: "unknown", CommitTimestamp: "unknown", Semver: ReleaseVersion(),
		OriginURL: "unknown", Timestamp: "unknown"}
	if Commit != "" {
		b.CommitSHA = Commit
	}
	if CommitTime != "" {
		b.CommitTimestamp, b.Timestamp = CommitTime, CommitTime
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.CommitSHA = s.Value
		case "vcs.time":
			b.CommitTimestamp = s.Value
			b.Timestamp = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && b.CommitSHA != "unknown" {
		b.CommitSHA += "-dirty"
	}
	return b
}

// GoVersion is the Go release the binary was built with.
func GoVersion() string { return runtime.Version() }

// pusher adapts a push queue to app.Pusher.
type pusher struct {
	q            *push.Queue
	router       *push.Router
	allowPrivate bool
}

func (p *pusher) Push(session chat.ID, sub chat.WebPushSubscription, payload []byte) {
	p.q.Enqueue(push.Job{Key: string(session), Payload: payload,
		Sub: push.Subscription{Endpoint: sub.Endpoint, P256DH: sub.P256DH, Auth: sub.Auth}})
}

func (p *pusher) Valid(sub chat.WebPushSubscription) bool {
	if chat.IsMobilePush(sub.Endpoint) {
		return sub.Auth != ""
	}
	return p.router.Web != nil && push.ValidEndpoint(sub.Endpoint, p.allowPrivate) && push.ValidKeys(sub.P256DH, sub.Auth)
}

// Unconfigured says once in the log that subscriptions of endpoint's kind
// are stored but not delivered.
func (p *pusher) Unconfigured(endpoint string) {
	if chat.IsMobilePush(endpoint) && (endpoint == chat.PushEndpointFCM && p.router.FCM == nil ||
		endpoint == chat.PushEndpointAPN && p.router.APNs == nil) {
		p.router.Unconfigured(endpoint)
	}
}

// startPush starts the Web Push delivery queue. Subscriptions the push
// service reports gone are removed from their sessions.
func (s *Server) startPush(cfg config.Config, appURL string) (*pusher, error) {
	subject := cfg.Push.Subject
	if subject == "" {
		subject = appURL
		if !strings.HasPrefix(subject, "https:") {
			// Push services want a way to reach the operator; an http
			// app URL is not accepted as one.
			subject = "mailto:admin@" + hostOf(appURL)
		}
	}
	router := &push.Router{Log: s.log}
	if cfg.Push.Enabled() {
		router.Web = push.New(push.Options{Keys: push.Keys{Public: cfg.Push.VAPIDPublicKey, Private: cfg.Push.VAPIDPrivateKey},
			Subject: subject, AllowPrivate: cfg.Push.AllowPrivate})
	}
	if f := cfg.Push.FCM; f.Enabled() {
		sa, err := push.ReadServiceAccount(f.ServiceAccount)
		if err != nil {
			return nil, err
		}
		fcm, err := push.NewFCM(sa, f.URL, nil)
		if err != nil {
			return nil, err
		}
		router.FCM = fcm
	}
	if a := cfg.Push.APN; a.Enabled() {
		key, err := push.ReadAPNsKey(a.KeyFile)
		if err != nil {
			return nil, err
		}
		base := a.URL
		if base == "" && a.Sandbox {
			base = push.APNsSandbox
		}
		apns, err := push.NewAPNs(push.APNsOptions{Key: key, KeyID: a.KeyID, TeamID: a.TeamID, Topic: a.Topic, URL: base})
		if err != nil {
			return nil, err
		}
		router.APNs = apns
	}
	q := push.NewQueue(push.QueueOptions{Sender: router, Log: s.log, Gone: func(ctx context.Context, j push.Job) {
		if err := s.App.RemovePushSubscription(ctx, chat.ID(j.Key), j.Sub.Endpoint); err != nil {
			s.log.ErrorContext(ctx, "remove expired push subscription", "session", j.Key, "err", err)
		}
	}})
	s.closers = append(s.closers, func() error { q.Close(); return nil })
	return &pusher{q: q, router: router, allowPrivate: cfg.Push.AllowPrivate}, nil
}

// hostOf returns the host name of a URL, or "localhost".
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

// checkImport refuses an instance an import into has not finished: its
// data is incomplete, and serving it would let users change what the
// import still has to write.
func checkImport(ctx context.Context, st store.Store) error {
	imp, err := st.FetchImport(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read import marker: %w", err)
	}
	return fmt.Errorf("an import from %s into this instance, started %s, is unfinished; run it again to finish it (it resumes where it stopped): %s",
		imp.Source, imp.Started, imp.Command)
}
