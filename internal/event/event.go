// Package event encodes events once per wire format and wraps them in the
// envelope that travels on the bus. The app encodes each event once when
// it publishes; every gateway node writes the same bytes to every
// connection that asks for that format.
package event

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	json "github.com/goccy/go-json"
	"github.com/vmihailenco/msgpack/v5"
)

// Frame is one event in both wire formats.
type Frame struct {
	Type    string // the event's type field, e.g. "Message"
	JSON    []byte
	Msgpack []byte
}

// Encode renders ev (a struct with a type field, from package chat) as
// JSON and as msgpack with named fields. Timestamps become ISO-8601
// strings in JSON and integer milliseconds in msgpack.
func Encode(typ string, ev any) (*Frame, error) {
	j, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode %s as json: %w", typ, err)
	}
	m, err := Msgpack(ev)
	if err != nil {
		return nil, fmt.Errorf("encode %s as msgpack: %w", typ, err)
	}
	return &Frame{Type: typ, JSON: j, Msgpack: m}, nil
}

// Msgpack encodes v as msgpack maps keyed by the json field names,
// honouring omitempty.
func Msgpack(v any) ([]byte, error) {
	p := packers.Get().(*packer)
	defer func() {
		p.buf.Reset()
		packers.Put(p)
	}()
	if err := p.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(p.buf.Bytes()), nil
}

// packer is a msgpack encoder set up as Msgpack needs it, with its
// buffer: every event is encoded, and a new encoder (with its own
// buffered writer and settings) cost more than the encoding of a small
// event.
type packer struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

var packers = sync.Pool{New: func() any {
	p := new(packer)
	p.enc = msgpack.NewEncoder(&p.buf)
	p.enc.SetCustomStructTag("json")
	p.enc.SetOmitEmpty(true)
	p.enc.UseCompactInts(true)
	return p
}}

// envelopeVersion is the first byte of a marshalled frame.
const envelopeVersion = 1

// Marshal returns the frame as bus bytes: a version byte, then the type,
// the JSON and the msgpack forms, each prefixed by its length as a uvarint.
func (f *Frame) Marshal() []byte {
	b := make([]byte, 0, 1+3*binary.MaxVarintLen64+len(f.Type)+len(f.JSON)+len(f.Msgpack))
	b = append(b, envelopeVersion)
	for _, part := range [][]byte{[]byte(f.Type), f.JSON, f.Msgpack} {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	return b
}

// ErrMalformed is returned by Unmarshal for bytes Marshal did not produce.
var ErrMalformed = errors.New("event: malformed envelope")

// Unmarshal reads bus bytes written by Marshal. The frame's slices alias b.
func Unmarshal(b []byte) (*Frame, error) {
	if len(b) == 0 || b[0] != envelopeVersion {
		return nil, ErrMalformed
	}
	b = b[1:]
	var parts [3][]byte
	for i := range parts {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, ErrMalformed
		}
		parts[i] = b[k : k+int(n)]
		b = b[k+int(n):]
	}
	if len(b) != 0 {
		return nil, ErrMalformed
	}
	return &Frame{Type: string(parts[0]), JSON: parts[1], Msgpack: parts[2]}, nil
}
