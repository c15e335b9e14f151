// Package revolttest writes dumps of a Revolt/Stoat instance, as
// mongodump and a mirror of its object store would leave them, for the
// import tests and benchmarks. The documents follow the reference's model
// definitions (serde names, tagged enums, the encodings its code paths
// write); nothing is read from a real instance.
package revolttest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/crypto/argon2"

	"ermine/internal/chat"
)

// Options choose what Write produces.
type Options struct {
	// Legacy writes the layout of an instance whose files the rewrite's
	// migration never moved: plaintext objects in per-tag buckets keyed
	// by file id, attachments without hashes, account invites under their
	// old collection name, legacy VoiceChannels and roles without _id.
	Legacy bool
	// Revision is the migrations revision (KnownRevision when 0).
	Revision int
	// Messages is how many messages the main channel holds beyond the
	// featured ones (paging tests want a few hundred).
	Messages int
	// Archive writes one mongodump --archive file instead of a directory;
	// Gzip compresses it (or, without Archive, each collection file).
	Archive, Gzip bool
}

// Fixture is what a dump holds, for tests to compare against.
type Fixture struct {
	Dump  string // --dump
	Files string // --files
	Key   string // --encryption-key (base64)

	Password     string // every human account's password
	AliceEmail   string
	BobEmail     string // has TOTP enabled
	TOTPSecret   string // bob's
	RecoveryCode string // bob's unused recovery code
	SessionToken string // alice's session
	BotToken     string

	Alice, Bob, Carol, BotUser chat.ID
	Server, General, Voice     chat.ID
	DM, Group, Saved           chat.ID
	Admin                      chat.ID // role
	Webhook                    chat.ID
	WebhookToken               string
	Emoji                      chat.ID
	Invite                     string

	// Messages of General, oldest first: the featured ones then the rest.
	Messages []chat.ID
	Pinned   chat.ID // pinned, edited, with a reaction and an attachment
	Reply    chat.ID // replies to Pinned, mentions bob, masqueraded
	System   chat.ID // a system message (user_joined)
	ByHook   chat.ID // written by the webhook

	// Files maps file ids to their plaintext bytes.
	Files_     map[string][]byte
	Attachment string // file id attached to Pinned
	Avatar     string // alice's avatar file id
	Icon       string // the server icon file id
}

// FileBytes returns the file ids and their bytes.
func (f *Fixture) FileBytes() map[string][]byte { return f.Files_ }

// Revision numbers (see revolt.MinRevision, revolt.KnownRevision).
const (
	known  = 52
	legacy = 30
)

// ids makes ULIDs in time order starting at a fixed past instant.
type ids struct{ t time.Time }

func (g *ids) next() chat.ID {
	g.t = g.t.Add(time.Second)
	return chat.NewIDAt(g.t)
}

// HashPassword writes an argon2i PHC string with the parameters the
// reference uses (m=4096, t=3, p=1).
func HashPassword(pw string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.Key([]byte(pw), salt, 3, 4096, 1, 32)
	return fmt.Sprintf("$argon2i$v=19$m=4096,t=3,p=1$%s$%s",
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// dump collects documents per collection.
type dump struct {
	colls map[string][][]byte
	order []string
}

func (d *dump) add(coll string, doc D) {
	b, err := bson.Marshal(doc)
	if err != nil {
		panic(err)
	}
	if _, ok := d.colls[coll]; !ok {
		d.order = append(d.order, coll)
	}
	d.colls[coll] = append(d.colls[coll], b)
}

// Write writes a dump into dir and returns what it holds.
func Write(dir string, o Options) (*Fixture, error) {
	g := &ids{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	key := make([]byte, 32)
	rand.Read(key)
	f := &Fixture{
		Files: filepath.Join(dir, "files"), Key: base64.StdEncoding.EncodeToString(key),
		Password: "correct horse battery", AliceEmail: "alice@example.com", BobEmail: "bob@example.com",
		TOTPSecret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", RecoveryCode: "abcde-12345",
		SessionToken: randomID(64),
		BotToken:     randomID(64),
		WebhookToken: randomID(64),
		Files_:       map[string][]byte{},
	}
	f.Alice, f.Bob, f.Carol, f.BotUser = g.next(), g.next(), g.next(), g.next()
	f.Server, f.General, f.Voice = g.next(), g.next(), g.next()
	f.DM, f.Group, f.Saved = g.next(), g.next(), g.next()
	f.Admin, f.Webhook, f.Emoji = g.next(), g.next(), g.next()
	f.Invite = "iNv1te00"
	d := &dump{colls: map[string][][]byte{}}
	rev := o.Revision
	if rev == 0 {
		rev = known
		if o.Legacy {
			rev = legacy
		}
	}
	d.add("migrations", D{{"_id", int32(0)}, {"revision", int32(rev)}})

	// Files.
	aead := gcm(key)
	file := func(tag, name, contentType string, data []byte, meta D, usedFor D, links ...E) (string, D) {
		id := randomID(42)
		f.Files_[id] = data
		sum := sha256.Sum256(data)
		hash := hex.EncodeToString(sum[:])
		doc := D{{"_id", id}, {"tag", tag}, {"filename", name}, {"metadata", meta}, {"content_type", contentType}, {"size", int64(len(data))}}
		if o.Legacy {
			doc = append(doc, links...)
			writeObject(f.Files, tag, id, data)
		} else {
			doc = append(doc, E{"hash", hash}, E{"uploaded_at", time.Now().UTC().Format(time.RFC3339Nano)},
				E{"uploader_id", string(f.Alice)}, E{"used_for", usedFor})
			doc = append(doc, links...)
			iv := make([]byte, 12)
			rand.Read(iv)
			writeObject(f.Files, "revolt-uploads", hash, aead.Seal(nil, iv, data, nil))
			d.add("attachment_hashes", D{{"_id", hash}, {"processed_hash", hash}, {"created_at", bson.DateTime(time.Now().UnixMilli())},
				{"bucket_id", "revolt-uploads"}, {"path", hash}, {"iv", base64.StdEncoding.EncodeToString(iv)},
				{"metadata", meta}, {"content_type", contentType}, {"size", int64(len(data))}})
		}
		d.add("attachments", doc)
		return id, D{{"_id", id}, {"tag", tag}, {"filename", name}, {"metadata", meta}, {"content_type", contentType}, {"size", int64(len(data))}}
	}
	pinned := g.next()
	var avatarDoc, iconDoc, attachDoc D
	f.Avatar, avatarDoc = file("avatars", "me.png", "image/png", pngBytes(), D{{"type", "Image"}, {"width", int64(1)}, {"height", int64(1)}},
		D{{"type", "UserAvatar"}, {"id", string(f.Alice)}}, E{"user_id", string(f.Alice)})
	f.Icon, iconDoc = file("icons", "icon.png", "image/png", pngBytes(), D{{"type", "Image"}, {"width", int64(1)}, {"height", int64(1)}},
		D{{"type", "ServerIcon"}, {"id", string(f.Server)}}, E{"server_id", string(f.Server)})
	f.Attachment, attachDoc = file("attachments", "notes.txt", "text/plain", []byte("the minutes of the meeting\n"), D{{"type", "Text"}},
		D{{"type", "Message"}, {"id", string(pinned)}}, E{"message_id", string(pinned)})

	// Accounts: alice (password), bob (TOTP and recovery codes), carol
	// (disabled, email pending verification).
	hash := HashPassword(f.Password)
	d.add("accounts", D{{"_id", string(f.Alice)}, {"email", "Alice@example.com"}, {"email_normalised", f.AliceEmail},
		{"password", hash}, {"disabled", false}, {"verification", D{{"status", "Verified"}}},
		{"password_reset", nil}, {"deletion", nil}, {"lockout", nil}, {"mfa", D{}}})
	d.add("accounts", D{{"_id", string(f.Bob)}, {"email", f.BobEmail}, {"email_normalised", f.BobEmail},
		{"password", hash}, {"verification", D{{"status", "Verified"}}}, {"password_reset", nil}, {"deletion", nil},
		{"lockout", D{{"attempts", int32(1)}, {"expiry", nil}}},
		{"mfa", D{{"totp_token", D{{"status", "Enabled"}, {"secret", f.TOTPSecret}}}, {"recovery_codes", bson.A{f.RecoveryCode, "zzzzz-99999"}}}}})
	d.add("accounts", D{{"_id", string(f.Carol)}, {"email", "carol@example.com"}, {"email_normalised", "carol@example.com"},
		{"password", hash}, {"disabled", true},
		{"verification", D{{"status", "Pending"}, {"token", "verify-token"}, {"expiry", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}},
		{"password_reset", nil}, {"deletion", nil}, {"lockout", nil}, {"mfa", D{}}})

	// Users.
	policy := bson.DateTime(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	d.add("users", D{{"_id", string(f.Alice)}, {"username", "alice"}, {"discriminator", "1234"}, {"display_name", "Alice A."},
		{"pronouns", "she/her"}, {"avatar", avatarDoc}, {"relations", bson.A{D{{"_id", string(f.Bob)}, {"status", "Friend"}}, D{{"_id", string(f.Carol)}, {"status", "Blocked"}}}},
		{"badges", int32(3)}, {"status", D{{"text", "moving house"}, {"presence", "Busy"}}},
		{"profile", D{{"content", "hello, I am alice"}}}, {"flags", int32(0)}, {"privileged", true},
		{"last_acknowledged_policy_change", policy}})
	d.add("users", D{{"_id", string(f.Bob)}, {"username", "bob"}, {"discriminator", "0002"},
		{"relations", bson.A{D{{"_id", string(f.Alice)}, {"status", "Friend"}}}},
		{"last_acknowledged_policy_change", int64(policy)}})
	d.add("users", D{{"_id", string(f.Carol)}, {"username", "carol"}, {"discriminator", "0003"}, {"flags", int32(1)},
		{"relations", bson.A{D{{"_id", string(f.Alice)}, {"status", "BlockedOther"}}}},
		{"legacy_theme", "dark"}, // a field no model has: reported as ignored
		{"last_acknowledged_policy_change", "2025-06-01T00:00:00Z"}})
	d.add("users", D{{"_id", string(f.BotUser)}, {"username", "helper"}, {"discriminator", "0004"},
		{"bot", D{{"owner", string(f.Alice)}}}, {"last_acknowledged_policy_change", policy}})

	d.add("sessions", D{{"_id", string(g.next())}, {"user_id", string(f.Alice)}, {"token", f.SessionToken}, {"name", "Firefox on Linux"},
		{"last_seen", policy}, {"subscription", D{{"endpoint", "https://push.example.com/x"}, {"p256dh", "BP256"}, {"auth", "AUTH"}}}})
	d.add("sessions", D{{"_id", string(g.next())}, {"user_id", string(f.Bob)}, {"token", randomID(64)}, {"name", "Stoat for Android"}, {"last_seen", int64(policy)}})
	d.add("mfa_tickets", D{{"_id", string(g.next())}, {"account_id", string(f.Bob)}, {"token", "ticket"}, {"validated", false}, {"authorised", false}})
	invColl := "account_invites"
	if o.Legacy {
		invColl = "invites"
	}
	d.add(invColl, D{{"_id", "regcode1"}, {"used", true}, {"claimed_by", string(f.Bob)}})
	d.add("user_settings", D{{"_id", string(f.Alice)}, {"theme", bson.A{int64(1700000000000), `{"accent":"#fd6671"}`}}, {"locale", bson.A{int64(1700000000001), `{"lang":"en_GB"}`}}})
	d.add("bots", D{{"_id", string(f.BotUser)}, {"owner", string(f.Alice)}, {"token", f.BotToken}, {"public", true},
		{"discoverable", true}, {"interactions_url", "https://bot.example.com/hook"}, {"flags", nil}})

	// The server, with a role (colour gradient), categories and system channels.
	role := D{{"name", "Admin"}, {"permissions", D{{"a", int64(8)}, {"d", int64(0)}}},
		{"colour", "linear-gradient(30deg, #ff0000, #0000ff)"}, {"hoist", true}, {"rank", int64(0)}}
	if !o.Legacy {
		role = append(D{{"_id", string(f.Admin)}}, role...)
	}
	d.add("servers", D{{"_id", string(f.Server)}, {"owner", string(f.Alice)}, {"name", "Moving Day"}, {"description", "a server that moves"},
		{"channels", bson.A{string(f.General), string(f.Voice)}},
		{"categories", bson.A{D{{"id", "cat1"}, {"title", "Talk"}, {"channels", bson.A{string(f.General), string(f.Voice)}}}}},
		{"system_messages", D{{"user_joined", string(f.General)}, {"user_left", string(f.General)}}},
		{"roles", D{{string(f.Admin), role}}}, {"default_permissions", int64(4_000_000)}, {"icon", iconDoc}, {"flags", int32(1)}, {"discoverable", true}})
	// joined_at in each encoding: Int64 ms, BSON date, RFC 3339, seconds.
	joined := time.Date(2025, 3, 2, 10, 0, 0, 0, time.UTC)
	d.add("server_members", D{{"_id", D{{"server", string(f.Server)}, {"user", string(f.Alice)}}}, {"joined_at", joined.UnixMilli()}, {"roles", bson.A{string(f.Admin)}}})
	d.add("server_members", D{{"_id", D{{"server", string(f.Server)}, {"user", string(f.Bob)}}}, {"joined_at", bson.DateTime(joined.UnixMilli())},
		{"nickname", "bobby"}, {"timeout", time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)}})
	d.add("server_members", D{{"_id", D{{"server", string(f.Server)}, {"user", string(f.BotUser)}}}, {"joined_at", joined.Format(time.RFC3339)}})
	d.add("server_members", D{{"_id", D{{"server", string(f.Server)}, {"user", string(f.Carol)}}}, {"joined_at", int32(joined.Unix())},
		{"pending_deletion_at", bson.DateTime(joined.UnixMilli())}})
	d.add("server_bans", D{{"_id", D{{"server", string(f.Server)}, {"user", string(f.Carol)}}}, {"reason", "spam"}})

	// Channels.
	d.add("channels", D{{"channel_type", "TextChannel"}, {"_id", string(f.General)}, {"server", string(f.Server)}, {"name", "general"},
		{"description", "talk here"}, {"default_permissions", D{{"a", int64(0)}, {"d", int64(1 << 23)}}},
		{"role_permissions", D{{string(f.Admin), D{{"a", int64(1 << 23)}, {"d", int64(0)}}}}}, {"slowmode", int64(5)}})
	if o.Legacy {
		d.add("channels", D{{"channel_type", "VoiceChannel"}, {"_id", string(f.Voice)}, {"server", string(f.Server)}, {"name", "voice"}})
	} else {
		d.add("channels", D{{"channel_type", "TextChannel"}, {"_id", string(f.Voice)}, {"server", string(f.Server)}, {"name", "voice"},
			{"voice", D{{"max_users", int64(10)}}}})
	}
	d.add("channels", D{{"channel_type", "DirectMessage"}, {"_id", string(f.DM)}, {"active", true}, {"recipients", bson.A{string(f.Alice), string(f.Bob)}}})
	d.add("channels", D{{"channel_type", "Group"}, {"_id", string(f.Group)}, {"name", "friends"}, {"owner", string(f.Alice)},
		{"recipients", bson.A{string(f.Alice), string(f.Bob)}}, {"permissions", int64(1 << 20)}})
	d.add("channels", D{{"channel_type", "SavedMessages"}, {"_id", string(f.Saved)}, {"user", string(f.Alice)}})
	d.add("channel_invites", D{{"type", "Server"}, {"_id", f.Invite}, {"server", string(f.Server)}, {"creator", string(f.Alice)}, {"channel", string(f.General)}})
	d.add("channel_webhooks", D{{"_id", string(f.Webhook)}, {"name", "CI"}, {"creator_id", string(f.Alice)}, {"channel_id", string(f.General)},
		{"permissions", int64(8_388_608)}, {"token", f.WebhookToken}})
	d.add("emojis", D{{"_id", string(f.Emoji)}, {"parent", D{{"type", "Server"}, {"id", string(f.Server)}}}, {"creator_id", string(f.Alice)}, {"name", "party"}, {"animated", true}})

	// Messages: the featured ones, then plain history.
	f.System = g.next()
	d.add("messages", D{{"_id", string(f.System)}, {"channel", string(f.General)}, {"author", "00000000000000000000000000"},
		{"system", D{{"type", "user_joined"}, {"id", string(f.Bob)}}}})
	f.Pinned = pinned
	g.t = pinned.Time().Add(time.Second)
	d.add("messages", D{{"_id", string(f.Pinned)}, {"channel", string(f.General)}, {"author", string(f.Alice)}, {"content", "welcome to the new home"},
		{"attachments", bson.A{attachDoc}}, {"edited", bson.DateTime(pinned.Time().Add(time.Minute).UnixMilli())},
		{"reactions", D{{"👍", bson.A{string(f.Bob), string(f.Alice)}}, {string(f.Emoji), bson.A{string(f.Bob)}}}},
		{"pinned", true}, {"embeds", bson.A{D{{"type", "Website"}, {"url", "https://example.com"}, {"title", "Example"}}}}})
	f.Reply = g.next()
	d.add("messages", D{{"_id", string(f.Reply)}, {"channel", string(f.General)}, {"author", string(f.BotUser)}, {"content", "hi <@" + string(f.Bob) + ">"},
		{"replies", bson.A{string(f.Pinned)}}, {"mentions", bson.A{string(f.Bob)}},
		{"masquerade", D{{"name", "Helper Bot"}, {"colour", "#00ff00"}}}, {"flags", int32(1)}})
	f.ByHook = g.next()
	d.add("messages", D{{"_id", string(f.ByHook)}, {"channel", string(f.General)}, {"author", string(f.Webhook)}, {"content", "build passed"},
		{"webhook", D{{"name", "CI"}, {"avatar", nil}}}})
	f.Messages = []chat.ID{f.System, f.Pinned, f.Reply, f.ByHook}
	for i := range o.Messages {
		id := g.next()
		f.Messages = append(f.Messages, id)
		author := f.Alice
		if i%2 == 1 {
			author = f.Bob
		}
		d.add("messages", D{{"_id", string(id)}, {"channel", string(f.General)}, {"author", string(author)}, {"content", fmt.Sprintf("message %d", i)}})
	}
	slices.Sort(f.Messages)
	d.add("messages", D{{"_id", string(g.next())}, {"channel", string(f.DM)}, {"author", string(f.Bob)}, {"content", "psst"}})
	last := f.Messages[len(f.Messages)-1]
	d.add("channel_unreads", D{{"_id", D{{"channel", string(f.General)}, {"user", string(f.Bob)}}}, {"last_id", string(f.Pinned)}, {"mentions", bson.A{string(f.Reply)}}})
	d.add("channel_unreads", D{{"_id", D{{"channel", string(f.General)}, {"user", string(f.Alice)}}}, {"last_id", string(last)}})

	report := g.next()
	d.add("safety_reports", D{{"_id", string(report)}, {"author_id", string(f.Bob)},
		{"content", D{{"type", "Message"}, {"id", string(f.Reply)}, {"report_reason", "Spam"}}},
		{"additional_context", "it pinged me"}, {"status", "Rejected"}, {"rejection_reason", "not spam"},
		{"closed_at", bson.DateTime(time.Now().UnixMilli())}, {"notes", ""}})
	d.add("safety_snapshots", D{{"_id", string(g.next())}, {"report_id", string(report)},
		{"content", D{{"_type", "Message"}, {"_prior_context", bson.A{}}, {"_leading_context", bson.A{}}, {"_id", string(f.Reply)}, {"channel", string(f.General)}, {"author", string(f.BotUser)}, {"content", "hi"}}}})
	d.add("audit_logs", D{{"_id", string(g.next())}, {"expires_at", bson.DateTime(time.Now().Add(90 * 24 * time.Hour).UnixMilli())},
		{"server", string(f.Server)}, {"reason", "spam"}, {"user", string(f.Alice)}, {"target", string(f.Carol)},
		{"action", D{{"type", "BanCreate"}, {"user", string(f.Carol)}}}})
	d.add("policy_changes", D{{"_id", string(g.next())}, {"created_time", policy}, {"effective_time", int64(policy)},
		{"description", "new terms"}, {"url", "https://example.com/terms"}})
	d.add("ratelimit_events", D{{"_id", string(g.next())}, {"target_id", string(f.Alice)}, {"event_type", "DiscriminatorChange"}})

	if o.Archive {
		f.Dump = filepath.Join(dir, "dump.archive")
		return f, d.writeArchive(f.Dump, o.Gzip)
	}
	f.Dump = filepath.Join(dir, "dump")
	return f, d.writeDir(filepath.Join(f.Dump, "revolt"), o.Gzip)
}

func (d *dump) writeDir(dir string, gz bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range d.order {
		var b bytes.Buffer
		for _, doc := range d.colls[c] {
			b.Write(doc)
		}
		name := filepath.Join(dir, c+".bson")
		data := b.Bytes()
		if gz {
			name += ".gz"
			data = gzipped(data)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return err
		}
		meta := fmt.Sprintf(`{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"}],"collectionName":%q,"type":"collection"}`, c)
		if err := os.WriteFile(filepath.Join(dir, c+".metadata.json"), []byte(meta), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeArchive writes the mongodump --archive format: magic, prelude
// (header and one metadata document per collection, then a terminator),
// then per collection a namespace header, its documents and a
// terminator, and a closing EOF block per collection.
func (d *dump) writeArchive(path string, gz bool) error {
	var b bytes.Buffer
	b.Write(binary.LittleEndian.AppendUint32(nil, 0x8199e26d))
	must := func(doc D) {
		raw, err := bson.Marshal(doc)
		if err != nil {
			panic(err)
		}
		b.Write(raw)
	}
	term := func() { b.Write([]byte{0xff, 0xff, 0xff, 0xff}) }
	must(D{{"concurrent_collections", int32(4)}, {"version", "0.1"}, {"server_version", "7.0.12"}, {"tool_version", "100.9.4"}})
	for _, c := range d.order {
		must(D{{"db", "revolt"}, {"collection", c}, {"metadata", `{"indexes":[]}`}, {"size", int32(0)}, {"type", "collection"}})
	}
	term()
	// Interleave collections in two blocks each, as a parallel dump does.
	for half := range 2 {
		for _, c := range d.order {
			docs := d.colls[c]
			part := docs[:len(docs)/2]
			if half == 1 {
				part = docs[len(docs)/2:]
			}
			if len(part) == 0 {
				continue
			}
			must(D{{"db", "revolt"}, {"collection", c}, {"EOF", false}, {"CRC", int64(0)}})
			for _, doc := range part {
				b.Write(doc)
			}
			term()
		}
	}
	for _, c := range d.order {
		must(D{{"db", "revolt"}, {"collection", c}, {"EOF", true}, {"CRC", int64(0)}})
		term()
	}
	data := b.Bytes()
	if gz {
		data = gzipped(data)
	}
	return os.WriteFile(path, data, 0o644)
}

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	_, _ = z.Write(data)
	z.Close()
	return b.Bytes()
}

func gcm(key []byte) cipher.AEAD {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	a, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return a
}

func writeObject(dir, bucket, key string, data []byte) {
	p := filepath.Join(dir, bucket, key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		panic(err)
	}
}

const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"

func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

// pngBytes returns a distinct valid 1×1 PNG each call is not needed:
// the same bytes twice test deduplication.
func pngBytes() []byte {
	b, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	return b
}

// D is a BSON document written in order; E is one of its elements. They
// stand for bson.D and bson.E so that documents read as in the
// reference's code, key then value.
type D []E

// E is a key and its value.
type E struct {
	K string
	V any
}

// MarshalBSON writes d as an ordered document.
func (d D) MarshalBSON() ([]byte, error) {
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = bson.E{Key: e.K, Value: e.V}
	}
	return bson.Marshal(out)
}

// AppendMessages appends n messages to the General channel of a dump
// Write made as a directory (not gzipped), streaming them to the file so
// that dumps of millions of messages take no memory. Every tenth message
// mentions bob, every twentieth has a reaction, every hundredth is
// edited (as a BSON date) and replies to the one before.
func AppendMessages(f *Fixture, n int) error {
	file, err := os.OpenFile(filepath.Join(f.Dump, "revolt", "messages.bson"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(file, 1<<20)
	g := &ids{t: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)}
	var prev chat.ID

	for i := range n {
		id := g.next()
		author := f.Alice
		if i%2 == 1 {
			author = f.Bob
		}
		doc := D{{"_id", string(id)}, {"channel", string(f.General)}, {"author", string(author)},
			{"content", fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog", i)}}
		if i%10 == 0 {
			doc = append(doc, E{"mentions", bson.A{string(f.Bob)}})
		}
		if i%20 == 0 {
			doc = append(doc, E{"reactions", D{{"👍", bson.A{string(f.Alice)}}}})
		}
		if i%100 == 0 && prev != "" {
			doc = append(doc, E{"edited", bson.DateTime(id.Time().Add(time.Minute).UnixMilli())}, E{"replies", bson.A{string(prev)}})
		}
		raw, err := bson.Marshal(doc)
		if err != nil {
			return err
		}
		if _, err := w.Write(raw); err != nil {
			return err
		}
		prev = id
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return file.Close()
}
