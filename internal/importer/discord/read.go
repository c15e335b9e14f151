package discord

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotExport is returned for a file that is not a DiscordChatExporter
// JSON export (another JSON document, another format, a truncated file).
var ErrNotExport = errors.New("not a DiscordChatExporter JSON export")

// Find expands the command line's files and directories into the export
// files to read: a file is taken as given, a directory is searched
// (recursively) for *.json files, in name order. Media directories the
// tool writes next to the exports hold no JSON and are passed over.
func Find(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// ReadHeader reads what an export file says before its messages.
func ReadHeader(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var h *Header
	err = Read(f, func(got *Header) error {
		h = got
		return errStop
	}, nil)
	if errors.Is(err, errStop) {
		return h, nil
	}
	if err == nil {
		return nil, fmt.Errorf("%s: %w", path, ErrNotExport)
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

var errStop = errors.New("stop")

// Read decodes an export from r, streaming: header is called once, when
// the guild and the channel are known (before the first message), and
// message for each message in file order. Either callback's error ends
// the read and is returned. A document without a guild, a channel or a
// messages array fails with an error wrapping ErrNotExport; a message
// that does not decode names its position.
func Read(r io.Reader, header func(*Header) error, message func(*Message) error) error {
	return read(r, header, message)
}

// keyed is a decoded message that names its id and time.
type keyed interface {
	key() (id, timestamp string)
}

func (m *Message) key() (string, string) { return m.ID, m.Timestamp }

// read is Read decoding each message into a T: Message, or a lighter
// type for a pass that needs less of it.
func read[T any, PT interface {
	*T
	keyed
}](r io.Reader, header func(*Header) error, message func(PT) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("%w: it does not start with a JSON object", ErrNotExport)
	}
	var h Header
	var sawGuild, sawChannel, sawMessages, headerSent bool
	sendHeader := func() error {
		if headerSent {
			return nil
		}
		if !sawGuild || !sawChannel || h.Channel.ID == "" {
			return fmt.Errorf("%w: no guild or channel before the messages", ErrNotExport)
		}
		headerSent = true
		if header != nil {
			return header(&h)
		}
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotExport, err)
		}
		key, _ := t.(string)
		switch key {
		case "guild":
			sawGuild = true
			err = dec.Decode(&h.Guild)
		case "channel":
			sawChannel = true
			err = dec.Decode(&h.Channel)
		case "dateRange":
			err = dec.Decode(&h.DateRange)
		case "exportedAt":
			err = dec.Decode(&h.ExportedAt)
		case "messages":
			sawMessages = true
			if err := sendHeader(); err != nil {
				return err
			}
			err = readMessages[T, PT](dec, message)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			if errors.Is(err, errStop) || !isSyntax(err) {
				return err
			}
			return fmt.Errorf("%w: field %q: %v", ErrNotExport, key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: %v", ErrNotExport, err)
	}
	if !sawMessages {
		return fmt.Errorf("%w: no messages array", ErrNotExport)
	}
	return nil
}

// isSyntax reports whether err is a decoding error rather than one a
// callback returned.
func isSyntax(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// readMessages reads the messages array, one message at a time.
func readMessages[T any, PT interface {
	*T
	keyed
}](dec *json.Decoder, fn func(PT) error) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		if err == nil {
			err = errors.New("messages is not an array")
		}
		return fmt.Errorf("%w: %v", ErrNotExport, err)
	}
	for n := 0; dec.More(); n++ {
		m := PT(new(T))
		if err := dec.Decode(m); err != nil {
			return fmt.Errorf("%w: message %d: %v", ErrNotExport, n+1, err)
		}
		if id, ts := m.key(); id == "" || ts == "" {
			return fmt.Errorf("%w: message %d has no id or timestamp", ErrNotExport, n+1)
		}
		if fn != nil {
			if err := fn(m); err != nil {
				return err
			}
		}
	}
	_, err := dec.Token() // ]
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotExport, err)
	}
	return nil
}
