// Package pubsub is the contract of Ermine's event bus: frames (opaque
// bytes, usually one encoded event) published on a topic reach every
// subscription of that topic on every node that shares the bus.
//
// Delivery is at-most-once. A subscriber that falls behind loses frames
// instead of slowing the publisher down; gateway clients recover through a
// fresh Ready. Implementations live in the subpackages inproc (one process),
// nats and redis (many nodes); pubsubtest is the suite they all pass.
package pubsub

import (
	"context"
	"errors"
	"strconv"
)

// ErrClosed is returned by operations on a closed Bus or Subscription.
var ErrClosed = errors.New("pubsub: closed")

// ErrInvalidTopic is returned for a topic that is empty or holds a
// character outside [0-9A-Za-z!].
var ErrInvalidTopic = errors.New("pubsub: invalid topic")

// Handler receives one frame published on topic. msg may be shared with
// other subscribers: the handler must not modify it, though it may keep it.
type Handler func(topic string, msg []byte)

// Bus carries frames published on topics to the subscriptions of every node
// sharing the bus. It is safe for concurrent use.
type Bus interface {
	// Publish sends msg to every current subscription of topic, on all
	// nodes sharing the bus. It does not wait for subscribers to handle
	// msg and never blocks on a slow one. The caller must not modify msg
	// after the call. It returns ErrInvalidTopic for a bad topic,
	// ErrClosed after Close, the context's error when ctx is done, and
	// the backend's error (wrapped) when the frame could not be sent.
	Publish(ctx context.Context, topic string, msg []byte) error

	// Subscribe opens a subscription whose topic set starts empty.
	// handler is called for every frame on any topic in the set. Calls
	// for one Subscription are serialised (never concurrent) and, for a
	// single publisher, in publish order per topic. handler must return
	// quickly: frames that arrive while the subscription's bounded queue
	// is full are dropped. It returns ErrClosed after Close.
	Subscribe(handler Handler) (Subscription, error)

	// Close closes every subscription and releases the backend
	// connection. Later calls return nil.
	Close() error
}

// Subscription is one handler's topic set. A gateway keeps one per node
// whose set is the union of what its local connections need. It is safe
// for concurrent use.
type Subscription interface {
	// Add puts topics into the set; topics already there are ignored.
	// When Add returns nil, the subscription is registered at the
	// backend: a frame published afterwards on one of the topics, from
	// any node, is delivered. On error some of the topics may have been
	// added. It returns ErrInvalidTopic (adding nothing) when any topic
	// is invalid, and ErrClosed after Close.
	Add(topics ...string) error

	// Remove takes topics out of the set; topics not there are ignored.
	// Frames published on them after Remove returns are not delivered;
	// frames already queued may still be. It returns ErrClosed after
	// Close.
	Remove(topics ...string) error

	// Close ends the subscription: queued frames are discarded and the
	// handler is not called again, except for a call already under way
	// (Close does not wait for it, so a handler may call Close). Later
	// calls return nil.
	Close() error
}

// Marker is implemented by a bus on which every frame is published in
// this process (inproc): there a reader may read some state first and
// follow the topics its changes are published on afterwards, if it can
// tell whether a frame was published on them in between. It takes Marks
// before the read and asks Changed once it follows the topics: when
// Changed says no, every frame published on them after the read was
// published after the follow too, and reaches the subscription.
type Marker interface {
	// Marks returns the marks of every topic now.
	Marks() Marks
	// Changed reports whether a frame was published on any of topics
	// since m was taken. It may say yes when none was (topics share
	// marks), never no when one was.
	Changed(m *Marks, topics ...string) bool
}

// MarkSlots is how many marks a Marker keeps: topics share them by
// hash. A reader asks about two topics: a frame published elsewhere
// while it reads makes it read again about once in thirty-two.
const MarkSlots = 64

// Marks is a Marker's count of frames published per slot of topics.
type Marks [MarkSlots]uint64

// MarkSlot returns the slot of Marks that counts topic's frames.
func MarkSlot(topic string) int {
	// FNV-1a: topics are short, and this runs on every publish.
	h := uint32(2166136261)
	for i := 0; i < len(topic); i++ {
		h ^= uint32(topic[i])
		h *= 16777619
	}
	return int(h % MarkSlots)
}

// ValidTopic reports whether topic is a non-empty string of the
// characters [0-9A-Za-z!], which every backend can use unescaped.
func ValidTopic(topic string) bool {
	if topic == "" {
		return false
	}
	for i := 0; i < len(topic); i++ {
		c := topic[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '!') {
			return false
		}
	}
	return true
}

// CheckTopics returns ErrInvalidTopic, naming the first bad topic, when any
// of topics is not valid.
func CheckTopics(topics ...string) error {
	for _, t := range topics {
		if !ValidTopic(t) {
			return &topicError{topic: t}
		}
	}
	return nil
}

// CheckPublish makes the checks every Bus does before publishing: the
// context is not done, the topic is valid and the bus is not closed. It
// returns the error Publish must return, or nil.
func CheckPublish(ctx context.Context, topic string, closed bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !ValidTopic(topic) {
		return CheckTopics(topic)
	}
	if closed {
		return ErrClosed
	}
	return nil
}

// topicError names the topic that was rejected and matches ErrInvalidTopic.
type topicError struct{ topic string }

func (e *topicError) Error() string { return "pubsub: invalid topic " + strconv.Quote(e.topic) }
func (e *topicError) Unwrap() error { return ErrInvalidTopic }
