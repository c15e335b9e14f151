package config_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"ermine/internal/config"
)

// env returns a getenv over m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// writeFile writes a TOML file into a temporary directory and returns its path.
func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ermine.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const examplePath = "../../ermine.example.toml"

func TestDefaultValid(t *testing.T) {
	if err := config.Default().Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	c, rest, err := config.Load(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, config.Default()) {
		t.Errorf("Load with nothing = %+v, want Default()", c)
	}
	if len(rest) != 0 {
		t.Errorf("rest = %q, want none", rest)
	}
}

func TestLoad(t *testing.T) {
	const file = `
listen = "0.0.0.0:8000"
[database]
url = "postgres://ermine@db/ermine"
[bus]
kind = "nats"
url = "nats://127.0.0.1:4222"
[files]
unused_file_ttl = "30m"
[files.limits]
emojis = 1000
[gateway]
keepalive = "90s"
send_queue = 64
[limits.new_user]
servers = 7
[voice]
enabled = true
[[voice.nodes]]
name = "eu"
lat = 50.1
lon = 8.7
url = "http://lk-eu:7880"
public_url = "wss://lk-eu.example.com"
api_key = "k"
api_secret = "s"
`
	tests := []struct {
		name     string
		file     string // TOML body; passed with --config unless empty
		args     []string
		env      map[string]string
		want     func(c *config.Config)
		wantRest []string
	}{
		{
			name: "file",
			file: file,
			want: func(c *config.Config) {
				c.Listen = "0.0.0.0:8000"
				c.Database.URL = "postgres://ermine@db/ermine"
				c.Bus = config.Bus{Kind: "nats", URL: "nats://127.0.0.1:4222"}
				c.Files.UnusedFileTTL = 30 * time.Minute
				c.Files.Limits.Emojis = 1000
				c.Gateway.Keepalive = 90 * time.Second
				c.Gateway.SendQueue = 64
				c.Limits.NewUser.Servers = 7
				c.Voice.Enabled = true
				c.Voice.Nodes = []config.VoiceNode{{Name: "eu", Lat: 50.1, Lon: 8.7, URL: "http://lk-eu:7880",
					PublicURL: "wss://lk-eu.example.com", APIKey: "k", APISecret: "s"}}
			},
		},
		{
			name: "env over defaults",
			env: map[string]string{
				"ERMINE_LISTEN":                        "127.0.0.1:1",
				"ERMINE_DATA":                          "/var/lib/ermine",
				"ERMINE_DATABASE_URL":                  "postgresql://x@y/z",
				"ERMINE_FILES_S3_USE_SSL":              "false",
				"ERMINE_FILES_LIMITS_ATTACHMENTS":      "123",
				"ERMINE_GATEWAY_KEEPALIVE":             "5m",
				"ERMINE_REGISTRATION_INVITE_ONLY":      "1",
				"ERMINE_WEBHOOKS_ENABLED":              "false",
				"ERMINE_LIMITS_NEW_USER_HOURS":         "0",
				"ERMINE_LIMITS_DEFAULT_BOTS":           "9",
				"ERMINE_PUBLIC_EVENTS_URL":             "wss://chat.example.com/events",
				"ERMINE_VOICE_NODES_0_NAME":            "only",
				"ERMINE_VOICE_NODES_0_LAT":             "-33.9",
				"ERMINE_VOICE_NODES_0_API_SECRET":      "shh",
				"ERMINE_VOICE_NODES_2_NAME":            "not contiguous, ignored",
				"ERMINE_SOMETHING_THAT_DOES_NOT_EXIST": "x",
			},
			want: func(c *config.Config) {
				c.Listen = "127.0.0.1:1"
				c.Data = "/var/lib/ermine"
				c.Database.URL = "postgresql://x@y/z"
				c.Files.S3.UseSSL = false
				c.Files.Limits.Attachments = 123
				c.Gateway.Keepalive = 5 * time.Minute
				c.Registration.InviteOnly = true
				c.Webhooks.Enabled = false
				c.Limits.NewUserHours = 0
				c.Limits.Default.Bots = 9
				c.Public.EventsURL = "wss://chat.example.com/events"
				c.Voice.Nodes = []config.VoiceNode{{Name: "only", Lat: -33.9, APISecret: "shh"}}
			},
		},
		{
			name: "env over file",
			file: file,
			env: map[string]string{
				"ERMINE_LISTEN":               "10.0.0.1:2",
				"ERMINE_BUS_KIND":             "redis",
				"ERMINE_BUS_URL":              "redis://r:6379",
				"ERMINE_GATEWAY_SEND_QUEUE":   "32",
				"ERMINE_VOICE_ENABLED":        "false",
				"ERMINE_VOICE_NODES_0_URL":    "https://lk-eu-internal",
				"ERMINE_VOICE_NODES_1_NAME":   "us",
				"ERMINE_VOICE_NODES_1_LON":    "-77",
				"ERMINE_LIMITS_NEW_USER_BOTS": "1",
			},
			want: func(c *config.Config) {
				c.Listen = "10.0.0.1:2"
				c.Database.URL = "postgres://ermine@db/ermine"
				c.Bus = config.Bus{Kind: "redis", URL: "redis://r:6379"}
				c.Files.UnusedFileTTL = 30 * time.Minute
				c.Files.Limits.Emojis = 1000
				c.Gateway.Keepalive = 90 * time.Second
				c.Gateway.SendQueue = 32
				c.Limits.NewUser.Servers = 7
				c.Limits.NewUser.Bots = 1
				c.Voice.Enabled = false
				c.Voice.Nodes = []config.VoiceNode{
					{Name: "eu", Lat: 50.1, Lon: 8.7, URL: "https://lk-eu-internal",
						PublicURL: "wss://lk-eu.example.com", APIKey: "k", APISecret: "s"},
					{Name: "us", Lon: -77},
				}
			},
		},
		{
			name: "flags over env",
			args: []string{"--listen", "127.0.0.1:0", "-data=/tmp/d", "serve", "--listen", "ignored"},
			env:  map[string]string{"ERMINE_LISTEN": "127.0.0.1:1", "ERMINE_DATA": "/env", "ERMINE_LOG_LEVEL": "debug"},
			want: func(c *config.Config) {
				c.Listen = "127.0.0.1:0"
				c.Data = "/tmp/d"
				c.Log.Level = "debug"
			},
			wantRest: []string{"serve", "--listen", "ignored"},
		},
		{
			name: "flag may set an empty value",
			args: []string{"--data", "", "config"},
			env:  map[string]string{"ERMINE_DATA": "/env"},
			want: func(c *config.Config) {
				c.Data = ""
			},
			wantRest: []string{"config"},
		},
		{
			name:     "config from ERMINE_CONFIG",
			env:      map[string]string{"ERMINE_CONFIG": "FILE"},
			file:     "[log]\nformat = \"json\"\n",
			want:     func(c *config.Config) { c.Log.Format = "json" },
			wantRest: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			e := map[string]string{}
			for k, v := range tt.env {
				e[k] = v
			}
			if tt.file != "" {
				p := writeFile(t, tt.file)
				if e["ERMINE_CONFIG"] == "FILE" {
					e["ERMINE_CONFIG"] = p
				} else {
					args = append([]string{"--config", p}, args...)
				}
			}
			got, rest, err := config.Load(args, env(e))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := config.Default()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Load =\n%+v\nwant\n%+v", got, want)
			}
			if len(rest) != len(tt.wantRest) || (len(rest) > 0 && !reflect.DeepEqual(rest, tt.wantRest)) {
				t.Errorf("rest = %q, want %q", rest, tt.wantRest)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		args []string
		env  map[string]string
		want []string // substrings of the error
	}{
		{name: "unknown top-level key", file: "listn = \"x:1\"\n", want: []string{"unknown key listn"}},
		{name: "unknown section key", file: "[database]\nurl = \"\"\nuser = \"x\"\n", want: []string{"unknown key database.user"}},
		{name: "unknown section", file: "[databse]\nurl = \"\"\n", want: []string{"unknown key databse"}},
		{name: "unknown node key", file: "[[voice.nodes]]\nname = \"a\"\nsecret = \"x\"\n", want: []string{"unknown key voice.nodes.secret"}},
		{name: "wrong type", file: "[gateway]\nsend_queue = \"many\"\n", want: []string{"gateway.send_queue"}},
		{name: "bad duration", file: "[gateway]\nkeepalive = \"soon\"\n", want: []string{"soon"}},
		{name: "duration as number", file: "[gateway]\nkeepalive = 60\n", want: []string{"gateway.keepalive", "duration string"}},
		{name: "syntax", file: "listen = \n", want: []string{"ermine.toml"}},
		{name: "missing file", args: []string{"--config", "/nonexistent/ermine.toml"}, want: []string{"/nonexistent/ermine.toml"}},
		{name: "env int", env: map[string]string{"ERMINE_GATEWAY_SEND_QUEUE": "12x"}, want: []string{"ERMINE_GATEWAY_SEND_QUEUE", `"12x"`}},
		{name: "env int with space", env: map[string]string{"ERMINE_EMAIL_PORT": " 25"}, want: []string{"ERMINE_EMAIL_PORT"}},
		{name: "env int overflow", env: map[string]string{"ERMINE_LIMITS_BODY_BYTES": "99999999999999999999"}, want: []string{"ERMINE_LIMITS_BODY_BYTES"}},
		{name: "env bool", env: map[string]string{"ERMINE_REGISTRATION_INVITE_ONLY": "yes"}, want: []string{"ERMINE_REGISTRATION_INVITE_ONLY", `"yes"`}},
		{name: "env duration", env: map[string]string{"ERMINE_FILES_UNUSED_FILE_TTL": "60"}, want: []string{"ERMINE_FILES_UNUSED_FILE_TTL"}},
		{name: "env float", env: map[string]string{"ERMINE_VOICE_NODES_0_LAT": "north"}, want: []string{"ERMINE_VOICE_NODES_0_LAT"}},
		{name: "unknown flag", args: []string{"--port", "1"}, want: []string{"port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.file != "" {
				args = append([]string{"--config", writeFile(t, tt.file)}, args...)
			}
			_, _, err := config.Load(args, env(tt.env))
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}

	t.Run("help", func(t *testing.T) {
		_, _, err := config.Load([]string{"-h"}, env(nil))
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("Load(-h) = %v, want flag.ErrHelp", err)
		}
	})
}

func TestValidate(t *testing.T) {
	node := config.VoiceNode{Name: "a", URL: "http://lk:7880", PublicURL: "wss://lk.example.com", APIKey: "k", APISecret: "s"}
	// A valid VAPID pair (P-256), generated once for this test.
	const vapidPub = "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U"
	const vapidPriv = "UUxI4O8-FbRouAevSmBQ6o18hgE4nSG3qwvJTfKc-ls"
	tests := []struct {
		name   string
		change func(c *config.Config)
		want   string // "" for valid
	}{
		{"listen without port", func(c *config.Config) { c.Listen = "localhost" }, "config: listen: "},
		{"listen bad port", func(c *config.Config) { c.Listen = "localhost:http" }, "config: listen: "},
		{"listen any host", func(c *config.Config) { c.Listen = ":14702" }, ""},
		{"data empty", func(c *config.Config) { c.Data = "" }, "config: data: "},
		{"public api ok", func(c *config.Config) { c.Public.APIURL = "https://chat.example.com/api" }, ""},
		{"public api ws", func(c *config.Config) { c.Public.APIURL = "wss://chat.example.com" }, "config: public.api_url: "},
		{"public api relative", func(c *config.Config) { c.Public.APIURL = "/api" }, "config: public.api_url: "},
		{"public api query", func(c *config.Config) { c.Public.APIURL = "https://x/api?a=b" }, "config: public.api_url: must not have a query"},
		{"public api empty query", func(c *config.Config) { c.Public.APIURL = "https://x/api?" }, "config: public.api_url: must not have a query"},
		{"public events http", func(c *config.Config) { c.Public.EventsURL = "https://x/events" }, "config: public.events_url: "},
		{"public events ok", func(c *config.Config) { c.Public.EventsURL = "ws://x:1/events" }, ""},
		{"public files fragment", func(c *config.Config) { c.Public.FilesURL = "https://x/autumn#a" }, "config: public.files_url: "},
		{"public app ftp", func(c *config.Config) { c.Public.AppURL = "ftp://x" }, "config: public.app_url: "},
		{"database mysql", func(c *config.Config) { c.Database.URL = "mysql://x" }, "config: database.url: must start with postgres://"},
		{"database postgresql", func(c *config.Config) { c.Database.URL = "postgresql://u:p@h:5432/d?sslmode=disable" }, ""},
		{"bus kind", func(c *config.Config) { c.Bus.Kind = "kafka" }, "config: bus.kind: "},
		{"bus inproc with url", func(c *config.Config) { c.Bus.URL = "nats://x" }, "config: bus.url: "},
		{"bus nats without url", func(c *config.Config) { c.Bus.Kind = "nats" }, "config: bus.url: "},
		{"bus nats list", func(c *config.Config) { c.Bus = config.Bus{Kind: "nats", URL: "nats://a:4222, nats://b:4222"} }, ""},
		{"bus nats redis url", func(c *config.Config) { c.Bus = config.Bus{Kind: "nats", URL: "redis://a"} }, "config: bus.url: "},
		{"profiling without listen", func(c *config.Config) { c.Metrics.Profiling = true }, "config: metrics.profiling: "},
		{"profiling", func(c *config.Config) { c.Metrics.Profiling, c.Metrics.Listen = true, "127.0.0.1:9102" }, ""},
		{"shared redis", func(c *config.Config) { c.Shared.URL = "redis://127.0.0.1:6379/0" }, ""},
		{"shared nats url", func(c *config.Config) { c.Shared.URL = "nats://a:4222" }, "config: shared.url: "},
		{"shared lease short", func(c *config.Config) { c.Shared.PresenceLease = 500 * time.Millisecond }, "config: shared.presence_lease: "},
		{"shared lease long", func(c *config.Config) { c.Shared.PresenceLease = time.Hour }, "config: shared.presence_lease: "},
		{"bus redis", func(c *config.Config) { c.Bus = config.Bus{Kind: "redis", URL: "rediss://a:6380/1"} }, ""},
		{"bus redis nats url", func(c *config.Config) { c.Bus = config.Bus{Kind: "redis", URL: "nats://a"} }, "config: bus.url: "},
		{"files backend", func(c *config.Config) { c.Files.Backend = "ftp" }, "config: files.backend: "},
		{"files s3 no bucket", func(c *config.Config) { c.Files.Backend = "s3"; c.Files.S3.Endpoint = "s3:9000" }, "config: files.s3.bucket: "},
		{"files s3 no endpoint", func(c *config.Config) { c.Files.Backend = "s3"; c.Files.S3.Bucket = "b" }, "config: files.s3.endpoint: "},
		{"files s3 endpoint scheme", func(c *config.Config) {
			c.Files.Backend = "s3"
			c.Files.S3.Bucket = "b"
			c.Files.S3.Endpoint = "https://s3"
		}, "config: files.s3.endpoint: "},
		{"files s3 secret without key", func(c *config.Config) { c.Files.S3.SecretKey = "x" }, "config: files.s3.secret_key: "},
		{"files ttl", func(c *config.Config) { c.Files.UnusedFileTTL = 0 }, "config: files.unused_file_ttl: "},
		{"files limit", func(c *config.Config) { c.Files.Limits.Banners = 0 }, "config: files.limits.banners: "},
		{"email port", func(c *config.Config) { c.Email.Port = 70000 }, "config: email.port: "},
		{"email tls", func(c *config.Config) { c.Email.TLS = "ssl" }, "config: email.tls: "},
		{"email without from", func(c *config.Config) { c.Email.Host = "smtp" }, "config: email.from: "},
		{"email ok", func(c *config.Config) { c.Email.Host = "smtp"; c.Email.From = "Ermine <noreply@example.com>" }, ""},
		{"email password without user", func(c *config.Config) { c.Email.Password = "p" }, "config: email.username: "},
		{"captcha half", func(c *config.Config) { c.Captcha.HCaptchaKey = "site" }, "config: captcha.hcaptcha_secret: "},
		{"trusted proxy", func(c *config.Config) { c.Public.TrustedProxies = []string{"10.0.0.0/8", "proxy.local"} }, `config: public.trusted_proxies: "proxy.local" is not`},
		{"push half", func(c *config.Config) { c.Push.VAPIDPublicKey = vapidPub }, "config: push.vapid_private_key: "},
		{"push ok", func(c *config.Config) { c.Push = config.Push{VAPIDPublicKey: vapidPub, VAPIDPrivateKey: vapidPriv} }, ""},
		{"push bad public", func(c *config.Config) { c.Push = config.Push{VAPIDPublicKey: "abc", VAPIDPrivateKey: vapidPriv} }, "config: push.vapid_public_key: "},
		{"push bad private", func(c *config.Config) { c.Push = config.Push{VAPIDPublicKey: vapidPub, VAPIDPrivateKey: vapidPub} }, "config: push.vapid_private_key: "},
		{"voice without nodes", func(c *config.Config) { c.Voice.Enabled = true }, "config: voice.nodes: "},
		{"voice ok", func(c *config.Config) { c.Voice.Enabled = true; c.Voice.Nodes = []config.VoiceNode{node} }, ""},
		{"voice duplicate", func(c *config.Config) { c.Voice.Nodes = []config.VoiceNode{node, node} }, "config: voice.nodes[1].name: "},
		{"voice lat", func(c *config.Config) { n := node; n.Lat = 91; c.Voice.Nodes = []config.VoiceNode{n} }, "config: voice.nodes[0].lat: "},
		{"voice lon", func(c *config.Config) { n := node; n.Lon = -181; c.Voice.Nodes = []config.VoiceNode{n} }, "config: voice.nodes[0].lon: "},
		{"voice url", func(c *config.Config) { n := node; n.URL = "ws://lk"; c.Voice.Nodes = []config.VoiceNode{n} }, "config: voice.nodes[0].url: "},
		{"voice public url", func(c *config.Config) { n := node; n.PublicURL = "https://lk"; c.Voice.Nodes = []config.VoiceNode{n} }, "config: voice.nodes[0].public_url: "},
		{"voice secret", func(c *config.Config) { n := node; n.APISecret = ""; c.Voice.Nodes = []config.VoiceNode{node, n} }, "config: voice.nodes[1].api_secret: "},
		{"gateway keepalive", func(c *config.Config) { c.Gateway.Keepalive = -time.Second }, "config: gateway.keepalive: "},
		{"gateway queue", func(c *config.Config) { c.Gateway.SendQueue = 0 }, "config: gateway.send_queue: "},
		{"gateway packet", func(c *config.Config) { c.Gateway.MaxPacket = 0 }, "config: gateway.max_packet: "},
		{"new user hours", func(c *config.Config) { c.Limits.NewUserHours = -1 }, "config: limits.new_user_hours: "},
		{"new user hours zero", func(c *config.Config) { c.Limits.NewUserHours = 0 }, ""},
		{"user limit", func(c *config.Config) { c.Limits.NewUser.Servers = 0 }, "config: limits.new_user.servers: "},
		{"default limit", func(c *config.Config) { c.Limits.Default.MessageLength = -5 }, "config: limits.default.message_length: "},
		{"global limit", func(c *config.Config) { c.Limits.ServerRoles = 0 }, "config: limits.server_roles: "},
		{"body bytes", func(c *config.Config) { c.Limits.BodyBytes = 0 }, "config: limits.body_bytes: "},
		{"log level", func(c *config.Config) { c.Log.Level = "verbose" }, "config: log.level: "},
		{"log format", func(c *config.Config) { c.Log.Format = "xml" }, "config: log.format: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := config.Default()
			tt.change(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate() = nil, want %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Validate() = %q, want it to contain %q", err, tt.want)
			}
		})
	}

	t.Run("reports every problem", func(t *testing.T) {
		c := config.Default()
		c.Log.Level = "loud"
		c.Gateway.SendQueue = 0
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "log.level") || !strings.Contains(err.Error(), "gateway.send_queue") {
			t.Errorf("Validate() = %v, want both keys named", err)
		}
	})
}

func TestMasked(t *testing.T) {
	c := config.Default()
	c.Database.URL = "postgres://ermine:hunter2@db:5432/ermine"
	c.Bus = config.Bus{Kind: "redis", URL: "redis://:pw@r:6379/0"}
	c.Files.S3.AccessKey = "AKIA"
	c.Files.S3.SecretKey = "s3secret"
	c.Email.Username = "mailer"
	c.Email.Password = "mailpass"
	c.Captcha.HCaptchaKey = "site"
	c.Captcha.HCaptchaSecret = "capsecret"
	c.Push.VAPIDPublicKey = "pub"
	c.Push.VAPIDPrivateKey = "priv"
	c.Voice.Nodes = []config.VoiceNode{{Name: "a", APIKey: "key", APISecret: "lksecret"}, {Name: "b"}}

	m := c.Masked()
	tests := []struct {
		name      string
		got, want string
	}{
		{"database url", m.Database.URL, "postgres://ermine:****@db:5432/ermine"},
		{"bus url", m.Bus.URL, "redis://:****@r:6379/0"},
		{"s3 access key kept", m.Files.S3.AccessKey, "AKIA"},
		{"s3 secret", m.Files.S3.SecretKey, "****"},
		{"email user kept", m.Email.Username, "mailer"},
		{"email password", m.Email.Password, "****"},
		{"captcha site key kept", m.Captcha.HCaptchaKey, "site"},
		{"captcha secret", m.Captcha.HCaptchaSecret, "****"},
		{"vapid public kept", m.Push.VAPIDPublicKey, "pub"},
		{"vapid private", m.Push.VAPIDPrivateKey, "****"},
		{"node key kept", m.Voice.Nodes[0].APIKey, "key"},
		{"node secret", m.Voice.Nodes[0].APISecret, "****"},
		{"empty secret stays empty", m.Voice.Nodes[1].APISecret, ""},
		{"original node untouched", c.Voice.Nodes[0].APISecret, "lksecret"},
		{"original untouched", c.Email.Password, "mailpass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}

	t.Run("no secret in TOML output", func(t *testing.T) {
		out, err := m.TOML()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"hunter2", "pw@", "s3secret", "mailpass", "capsecret", "priv\"", "lksecret"} {
			if strings.Contains(out, s) {
				t.Errorf("masked TOML contains %q:\n%s", s, out)
			}
		}
	})

	t.Run("defaults unchanged", func(t *testing.T) {
		if d := config.Default(); !reflect.DeepEqual(d.Masked(), d) {
			t.Errorf("Masked changed a config without secrets")
		}
	})
}

func TestExample(t *testing.T) {
	c, _, err := config.Load([]string{"--config", examplePath}, env(nil))
	if err != nil {
		t.Fatalf("Load example: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("example does not validate: %v", err)
	}
	// The example shows the defaults; only its sample voice node is extra.
	want := config.Default()
	want.Voice.Nodes = c.Voice.Nodes
	if !reflect.DeepEqual(c, want) {
		t.Errorf("example values differ from Default():\n%+v\nwant\n%+v", c, want)
	}
	if len(c.Voice.Nodes) != 1 {
		t.Errorf("example has %d voice nodes, want 1 showing every node key", len(c.Voice.Nodes))
	}
}

func TestRoundTrip(t *testing.T) {
	full := config.Default()
	full.Listen = "[::1]:9"
	full.Public = config.Public{APIURL: "https://c.example/api", EventsURL: "wss://c.example/events",
		FilesURL: "https://c.example/autumn", AppURL: "https://c.example", TrustedProxies: []string{"127.0.0.1", "10.0.0.0/8"}}
	full.Database.URL = "postgres://u:p@h/d"
	full.Bus = config.Bus{Kind: "nats", URL: "nats://n:4222"}
	full.Files.Backend = "s3"
	full.Files.S3 = config.S3{Endpoint: "s3:9000", Bucket: "b", AccessKey: "a", SecretKey: "s", Region: "r"}
	full.Files.UnusedFileTTL = 90 * time.Minute
	full.Email = config.Email{Host: "smtp", Port: 465, TLS: "tls", Username: "u", Password: "p", From: "a@b.c"}
	full.Registration.InviteOnly = true
	full.Voice = config.Voice{Enabled: true, Nodes: []config.VoiceNode{
		{Name: "a", Lat: 1.25, Lon: -2.5, URL: "http://a", PublicURL: "wss://a", APIKey: "k", APISecret: "s"},
		{Name: "b", Lat: 0.1, Lon: 179.9, URL: "http://b", PublicURL: "wss://b", APIKey: "k2", APISecret: "s2"},
	}}
	full.Gateway.Keepalive = 1500 * time.Millisecond
	full.Limits.Default.Servers = 1000

	for _, tt := range []struct {
		name string
		c    config.Config
	}{
		{"defaults", config.Default()},
		{"full", full},
		{"masked", full.Masked()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.c.TOML()
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := config.Load([]string{"--config", writeFile(t, out)}, env(nil))
			if err != nil {
				t.Fatalf("Load(TOML()) = %v\n%s", err, out)
			}
			if !reflect.DeepEqual(got, tt.c) {
				t.Errorf("round trip =\n%+v\nwant\n%+v\nTOML:\n%s", got, tt.c, out)
			}
		})
	}
}

func TestPublicURLs(t *testing.T) {
	c := config.Default()
	got := c.PublicURLs("127.0.0.1:5000")
	want := config.Public{APIURL: "http://127.0.0.1:5000", EventsURL: "ws://127.0.0.1:5000/events",
		FilesURL: "http://127.0.0.1:5000/autumn", EmbedsURL: "http://127.0.0.1:5000/january", AppURL: "http://127.0.0.1:5000/app",
		TrustedProxies: []string{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("derived = %+v, want %+v", got, want)
	}
	c.Public.EventsURL = "wss://chat.example.com/events"
	if got := c.PublicURLs("x:1"); got.EventsURL != "wss://chat.example.com/events" || got.APIURL != "http://x:1" {
		t.Errorf("set URL not kept: %+v", got)
	}
}

func TestForAgeAndTag(t *testing.T) {
	l := config.Default().Limits
	tests := []struct {
		age  time.Duration
		want int
	}{{time.Hour, 50}, {71 * time.Hour, 50}, {72 * time.Hour, 100}, {1000 * time.Hour, 100}}
	for _, tt := range tests {
		t.Run(tt.age.String(), func(t *testing.T) {
			if got := l.ForAge(tt.age).Servers; got != tt.want {
				t.Errorf("ForAge(%v).Servers = %d, want %d", tt.age, got, tt.want)
			}
		})
	}
	fl := config.Default().Files.Limits
	if n, ok := fl.ForTag("icons"); !ok || n != 2_500_000 {
		t.Errorf("ForTag(icons) = %d, %v", n, ok)
	}
	if _, ok := fl.ForTag("videos"); ok {
		t.Errorf("ForTag(videos) reported a limit")
	}
}
