package files_test

import (
	"context"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"ermine/internal/apitest"
	"ermine/internal/chat"
)

// wav is a short PCM WAV file.
func wav() []byte {
	le := binary.LittleEndian
	data := make([]byte, 800)
	b := []byte("RIFF")
	b = le.AppendUint32(b, uint32(36+len(data)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1)     // PCM
	b = le.AppendUint16(b, 1)     // mono
	b = le.AppendUint32(b, 8000)  // sample rate
	b = le.AppendUint32(b, 16000) // byte rate
	b = le.AppendUint16(b, 2)
	b = le.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

func TestAudio(t *testing.T) {
	n := start(t, backends[0])
	u := n.NewUser("hana")
	id := n.uploadID("attachments", u.Token, "voice.wav", wav())
	if f := n.record(id); f.Metadata.Type != chat.MetadataAudio || !strings.HasPrefix(f.ContentType, "audio/") || f.Size != int64(len(wav())) {
		t.Fatalf("record %s %+v %d", f.ContentType, f.Metadata, f.Size)
	}
	if res := n.upload("avatars", u.Token, "voice.wav", wav()); res.Status != http.StatusBadRequest {
		t.Fatalf("audio avatar: %d", res.Status)
	}
}

// TestMaxSide checks ?max_side= resizes icon and avatar previews up to
// 256 pixels and is ignored elsewhere.
func TestMaxSide(t *testing.T) {
	n := start(t, backends[0])
	u := n.NewUser("ivan")
	src := pngWithText(t, quadrants(600, 400), 0)
	ids := map[string]string{}
	for _, tag := range []string{"icons", "avatars", "attachments", "banners"} {
		ids[tag] = n.uploadID(tag, u.Token, "p.png", src)
		n.use(ids[tag])
	}
	tests := []struct {
		tag, query string
		w, h       int
	}{
		{"icons", "", 128, 85},
		{"icons", "?max_side=256", 256, 171},
		{"icons", "?max_side=5000", 256, 171},
		{"icons", "?max_side=32", 32, 21},
		{"avatars", "?max_side=256", 256, 171},
		{"avatars", "?max_side=nonsense", 128, 85},
		{"attachments", "?max_side=32", 600, 400},
		{"banners", "?max_side=256", 480, 320},
	}
	for _, tc := range tests {
		t.Run(tc.tag+tc.query, func(t *testing.T) {
			res := n.get("/autumn/" + tc.tag + "/" + ids[tc.tag] + tc.query)
			checkPreview(t, res, tc.w, tc.h)
			if res.header.Get("Content-Type") != "image/png" {
				t.Fatalf("preview of a transparent-capable PNG source is %s", res.header.Get("Content-Type"))
			}
		})
	}
}

// TestRange checks originals can be fetched in parts, as video players do.
func TestRange(t *testing.T) {
	n := start(t, backends[1])
	u := n.NewUser("judy")
	id := n.uploadID("attachments", u.Token, "n.txt", []byte("0123456789abcdef"))
	n.use(id)
	res := n.get("/autumn/attachments/"+id+"/n.txt", "Range", "bytes=4-7")
	if res.status != http.StatusPartialContent || string(res.body) != "4567" {
		t.Fatalf("range: %d %q", res.status, res.body)
	}
	head := n.request(http.MethodHead, "/autumn/attachments/"+id+"/n.txt")
	if head.status != http.StatusOK || head.header.Get("Content-Length") != "16" || len(head.body) != 0 {
		t.Fatalf("HEAD: %d %v", head.status, head.header)
	}
}

// TestOtherCallers checks bots upload with X-Bot-Token and that a session
// whose account has no user yet cannot upload.
func TestOtherCallers(t *testing.T) {
	n := start(t, backends[0])
	ctx := context.Background()
	owner := n.NewUser("kim")
	bot := &chat.Bot{ID: chat.NewID(), Owner: owner.ID, Token: chat.NewToken(64)}
	must(t, n.Server.Store.InsertUser(ctx, &chat.User{ID: bot.ID, Username: "helper", Discriminator: "1234",
		Bot: &chat.BotInformation{Owner: owner.ID}}))
	must(t, n.Server.Store.InsertBot(ctx, bot))
	ct, body := multipartBody(t, [3]string{"file", "a.txt", "from a bot"})
	res := n.Do(apitest.Request{Method: http.MethodPost, Path: "/autumn/attachments", Body: body,
		Header: map[string]string{"Content-Type": ct}, Bot: bot.Token})
	if res.Status != http.StatusOK {
		t.Fatalf("bot upload: %d %s", res.Status, res.Body)
	}
	var out struct{ ID string }
	res.JSON(t, &out)
	if f := n.record(out.ID); f.UploaderID != bot.ID {
		t.Fatalf("uploader %s, want the bot", f.UploaderID)
	}

	acc := chat.NewID()
	must(t, n.Server.Store.InsertAccount(ctx, &chat.Account{ID: acc, Email: "new@ermine.test", EmailNormalised: "new@ermine.test", PasswordHash: "!"}))
	se := &chat.Session{ID: chat.NewID(), UserID: acc, Token: chat.NewToken(64), Name: "t"}
	must(t, n.Server.Store.InsertSession(ctx, se))
	res = n.Do(apitest.Request{Method: http.MethodPost, Path: "/autumn/attachments", Body: body,
		Header: map[string]string{"Content-Type": ct}, Session: se.Token})
	if res.Status != http.StatusUnauthorized || errType(t, res.Body) != "NotAuthenticated" {
		t.Fatalf("upload before onboarding: %d %s", res.Status, res.Body)
	}
}
