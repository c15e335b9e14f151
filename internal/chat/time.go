package chat

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// TimeLayout is the wire form of timestamps in JSON: ISO-8601 UTC with
// exactly millisecond precision, e.g. 2025-01-02T03:04:05.678Z.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Time is a timestamp as it travels on the wire. JSON carries it as an
// ISO-8601 string with milliseconds; msgpack carries it as integer
// milliseconds since the epoch (the gateway registers that encoding).
// Input accepts either form.
type Time struct{ time.Time }

// Now returns the current time truncated to milliseconds, the precision
// every stored timestamp has.
func Now() Time { return Time{time.Now().UTC().Truncate(time.Millisecond)} }

// TimeOf wraps t, truncated to milliseconds.
func TimeOf(t time.Time) Time { return Time{t.UTC().Truncate(time.Millisecond)} }

// TimeFromMillis converts milliseconds since the epoch.
func TimeFromMillis(ms int64) Time { return Time{time.UnixMilli(ms).UTC()} }

// Millis returns the time as milliseconds since the epoch.
func (t Time) Millis() int64 { return t.UnixMilli() }

// String formats the time in the wire layout.
func (t Time) String() string { return t.UTC().Format(TimeLayout) }

// MarshalJSON writes the ISO-8601 form.
func (t Time) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 26)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, TimeLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts an ISO-8601 string or integer milliseconds.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] != '"' {
		ms, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return errors.New("timestamp must be an ISO-8601 string or integer milliseconds")
		}
		*t = TimeFromMillis(ms)
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return errors.New("timestamp must be ISO-8601 (RFC 3339)")
	}
	*t = TimeOf(v)
	return nil
}

// EncodeMsgpack writes the time as integer milliseconds since the epoch,
// the form msgpack clients decode timestamps from.
func (t Time) EncodeMsgpack(enc *msgpack.Encoder) error {
	return enc.EncodeInt(t.Millis())
}

// DecodeMsgpack reads integer milliseconds or an ISO-8601 string.
func (t *Time) DecodeMsgpack(dec *msgpack.Decoder) error {
	v, err := dec.DecodeInterface()
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case string:
		p, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return errors.New("timestamp must be ISO-8601 (RFC 3339)")
		}
		*t = TimeOf(p)
	case int64:
		*t = TimeFromMillis(v)
	case uint64:
		*t = TimeFromMillis(int64(v))
	case int8, int16, int32, uint8, uint16, uint32:
		ms, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		*t = TimeFromMillis(ms)
	default:
		return fmt.Errorf("timestamp: unexpected msgpack %T", v)
	}
	return nil
}
