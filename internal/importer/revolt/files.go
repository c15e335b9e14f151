package revolt

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.mongodb.org/mongo-driver/v2/bson"
	_ "modernc.org/sqlite" // the temporary index of attachment_hashes

	"ermine/internal/chat"
)

// ErrWrongKey is returned when the first encrypted object does not
// decrypt with the key given: the key is wrong, not the object.
var ErrWrongKey = errors.New("objects do not decrypt with --encryption-key: it is not the instance's files.encryption_key")

// ErrNoKey is returned when objects are encrypted and no key was given.
var ErrNoKey = errors.New("the instance's objects are encrypted: pass --encryption-key with files.encryption_key from Revolt.toml")

// hashInfo is where an attachment_hashes entry keeps its bytes.
type hashInfo struct {
	Bucket, Path, IV string
}

// hashIndex maps content hashes to their objects. It lives in a
// temporary SQLite file, so memory stays bounded however many files the
// instance holds.
type hashIndex struct {
	db   *sql.DB
	path string
}

func newHashIndex(tmp string) (*hashIndex, error) {
	dir, err := os.MkdirTemp(tmp, "ermine-revolt-hashes-*")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "hashes.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE hashes (id TEXT PRIMARY KEY, bucket TEXT, path TEXT, iv TEXT)`); err != nil {
		db.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	return &hashIndex{db: db, path: dir}, nil
}

func (h *hashIndex) Close() error {
	err := h.db.Close()
	os.RemoveAll(h.path)
	return err
}

// load reads every attachment_hashes document into the index.
func (h *hashIndex) load(ctx context.Context, d *Dump) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	err = d.Each("attachment_hashes", 0, func(doc bson.Raw) error {
		var v struct {
			ID     string `json:"_id"`
			Bucket string `json:"bucket_id"`
			Path   string `json:"path"`
			IV     string `json:"iv"`
		}
		if err := decode(doc, &v); err != nil || v.ID == "" {
			return &DocumentError{Collection: "attachment_hashes", ID: docID(doc), Err: fmt.Errorf("unknown shape: %v", err)}
		}
		if v.Path == "" {
			v.Path = v.ID
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO hashes VALUES (?, ?, ?, ?)`, v.ID, v.Bucket, v.Path, v.IV)
		return err
	})
	if err != nil {
		return err
	}
	return tx.Commit()
}

func (h *hashIndex) lookup(ctx context.Context, hash string) (*hashInfo, error) {
	var i hashInfo
	err := h.db.QueryRowContext(ctx, `SELECT bucket, path, iv FROM hashes WHERE id = ?`, hash).Scan(&i.Bucket, &i.Path, &i.IV)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &i, err
}

// objects reads the instance's object store as mirrored to a directory.
type objects struct {
	dir     string
	aead    cipher.AEAD // nil without a key
	decoded int         // objects decrypted so far
}

func newObjects(dir string, key []byte) (*objects, error) {
	o := &objects{dir: dir}
	if key != nil {
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("encryption key: %w", err)
		}
		if o.aead, err = cipher.NewGCM(block); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// errMissing is an object absent from the mirror.
var errMissing = errors.New("object missing from --files")

// errUndecryptable is an object the right key does not decrypt.
var errUndecryptable = errors.New("object does not decrypt (corrupted)")

// open returns the plaintext of bucket/key, decrypting with iv (base64)
// when it is not empty.
func (o *objects) open(bucket, key, iv string) (io.ReadCloser, error) {
	if o.dir == "" {
		return nil, errMissing
	}
	if !plainName(bucket) || !plainPath(key) {
		return nil, fmt.Errorf("object %s/%s: not a plain name", bucket, key)
	}
	p := filepath.Join(o.dir, bucket, filepath.FromSlash(key))
	if iv == "" {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, errMissing
		}
		return f, err
	}
	if o.aead == nil {
		return nil, ErrNoKey
	}
	nonce, err := base64.StdEncoding.DecodeString(iv)
	if err != nil || len(nonce) != o.aead.NonceSize() {
		return nil, fmt.Errorf("iv %q is not %d base64 bytes", iv, o.aead.NonceSize())
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errMissing
	}
	if err != nil {
		return nil, err
	}
	plain, err := o.aead.Open(data[:0], nonce, data, nil)
	if err != nil {
		if o.decoded == 0 {
			return nil, ErrWrongKey
		}
		return nil, errUndecryptable
	}
	o.decoded++
	return io.NopCloser(bytes.NewReader(plain)), nil
}

func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && filepath.Base(s) == s
}

func plainPath(s string) bool {
	if s == "" {
		return false
	}
	for _, seg := range bytes.Split([]byte(s), []byte("/")) {
		if !plainName(string(seg)) {
			return false
		}
	}
	return true
}

// attachment is an attachments document.
type attachment struct {
	chat.File
	Hash       string     `json:"hash"`
	UploadedAt *chat.Time `json:"uploaded_at"`
	UploaderID *chat.ID   `json:"uploader_id"`
	UsedFor    *struct {
		Type string  `json:"type"`
		ID   chat.ID `json:"id"`
	} `json:"used_for"`
}

// usedFor names what a file serves, in Ermine's words, from the
// reference's used_for or, on older rows, from the ids it carries.
func (a *attachment) usedFor() string {
	if a.UsedFor != nil {
		switch a.UsedFor.Type {
		case "Message":
			return "message"
		case "UserAvatar":
			return "user_avatar"
		case "UserProfileBackground":
			return "user_background"
		case "ChannelIcon", "LegacyGroupIcon":
			return "channel_icon"
		case "ServerIcon":
			return "server_icon"
		case "ServerBanner":
			return "server_banner"
		case "Emoji":
			return "emoji"
		case "RoleIcon":
			return "role_icon"
		case "WebhookAvatar":
			return "webhook_avatar"
		}
	}
	switch {
	case a.MessageID != nil:
		return "message"
	case a.UserID != nil && a.Tag == chat.TagBackgrounds:
		return "user_background"
	case a.UserID != nil:
		return "user_avatar"
	case a.ServerID != nil && a.Tag == chat.TagBanners:
		return "server_banner"
	case a.ServerID != nil:
		return "server_icon"
	case a.ObjectID != nil && a.Tag == chat.TagEmojis:
		return "emoji"
	case a.ObjectID != nil && a.Tag == chat.TagIcons:
		return "channel_icon"
	}
	return ""
}

func (a *attachment) record() *chat.FileRecord {
	rec := &chat.FileRecord{File: a.File, UsedFor: a.usedFor()}
	if a.UploadedAt != nil {
		rec.UploadedAt = *a.UploadedAt
	} else if t := chat.ID(a.ID).Time(); !t.IsZero() {
		rec.UploadedAt = chat.TimeOf(t)
	} else {
		rec.UploadedAt = chat.Now()
	}
	if a.UploaderID != nil {
		rec.UploaderID = *a.UploaderID
	}
	if a.UsedFor != nil && a.UsedFor.ID != "" {
		id := a.UsedFor.ID
		switch rec.UsedFor {
		case "message":
			if rec.MessageID == nil {
				rec.MessageID = &id
			}
		case "user_avatar", "user_background":
			if rec.UserID == nil {
				rec.UserID = &id
			}
		default:
			if rec.ObjectID == nil && rec.ServerID == nil {
				rec.ObjectID = &id
			}
		}
	}
	return rec
}
