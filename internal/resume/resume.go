// Package resume keeps the streams of events connections that asked to be
// resumable (resume=1 on the events URL), so that a client that lost its
// connection gets the frames it missed instead of a whole Ready.
//
// A stream is identified by its resume id and holds a header (whose it is,
// its format, the state of a takeover) and its last frames, each with its
// sequence number. The gateway writes the frames of a connection that
// went away into its stream while it keeps recording what that connection
// would have been sent; a reconnect on any node reads them back.
//
// Memory keeps streams in this process (one node); Redis shares them
// between the nodes using one Redis. resumetest is the suite both pass.
//
// A stream also names the node recording it (Header.Node, the random id
// a node takes when it starts, so a restarted node is another), and each
// node renews a short-lived mark of its own (Beat) while it runs: a
// reconnect whose stream's node has no mark left (Alive) knows at once
// that nobody recorded what it missed, instead of waiting for an answer
// that will not come.
//
// Memory per stream is bounded: at most MaxFrames frames (older ones are
// dropped as new ones come), which the gateway keeps under MaxBytes of
// frame data, plus a header whose scope (the connection's servers,
// roles, channels and followed users as ids, about 30 bytes per id) is
// written only for the instant of a takeover.
package resume

import (
	"context"
	"time"
)

// Bounds of one stream.
const (
	// MaxFrames is how many frames a stream keeps at most.
	MaxFrames = 1024
	// MaxBytes bounds the frame data the gateway keeps for one stream:
	// it stops recording a stream that would grow past it.
	MaxBytes = 2 << 20
)

// Frame is one frame of a stream: its sequence number and the bytes of
// the packet without the number (the gateway adds it when it writes).
type Frame struct {
	Seq  uint64
	Data []byte
}

// Header describes a stream.
type Header struct {
	// User owns the stream; Format is "json" or "msgpack".
	User, Format string
	// Node is the node that opened the stream and records it (see
	// Beat), empty for a stream opened without one.
	Node string
	// Prepared is the nonce of the takeover whose Scope was written.
	Prepared, Scope string
	// Sealed is the nonce of the takeover that ended the recording;
	// Last is then the sequence number of its last frame, and Intact
	// reports whether the scope stayed as it was prepared.
	Sealed string
	Last   uint64
	Intact bool
}

// Streams keeps resumable streams. Every method is safe for concurrent
// use. Methods other than Open do nothing on an id that holds no stream
// (it expired, was deleted or never existed): a stream is never brought
// back by a late write.
type Streams interface {
	// Open starts the stream id of user's connection in format,
	// recorded by node, replacing whatever id held, to expire after ttl.
	Open(ctx context.Context, id, user, format, node string, ttl time.Duration) error
	// Append adds frames, whose numbers follow those already held, keeps
	// the last MaxFrames and makes the stream expire after ttl.
	Append(ctx context.Context, id string, frames []Frame, ttl time.Duration) error
	// Prepare records scope for the takeover nonce.
	Prepare(ctx context.Context, id, nonce, scope string) error
	// Seal appends frames (as Append, keeping the expiry) and marks the
	// stream sealed by the takeover nonce, with the number of its last
	// frame and whether its scope stayed as prepared.
	Seal(ctx context.Context, id, nonce string, frames []Frame, last uint64, intact bool) error
	// Fetch returns the stream's header; ok is false when there is none.
	Fetch(ctx context.Context, id string) (h Header, ok bool, err error)
	// Frames returns the frames held numbered after seq, in order.
	Frames(ctx context.Context, id string, after uint64) ([]Frame, error)
	// Delete removes the stream.
	Delete(ctx context.Context, id string) error

	// Beat marks node alive for ttl from now; a ttl of zero or less
	// marks it gone at once.
	Beat(ctx context.Context, node string, ttl time.Duration) error
	// Alive reports whether node's last Beat has not expired.
	Alive(ctx context.Context, node string) (bool, error)
}
