package revolt

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// timeKeys are the fields that hold timestamps in the reference's
// documents. Their encodings differ by how a document was written (Int64
// milliseconds, BSON dates, RFC 3339 strings, and whole seconds for some
// older rows); toJSON writes them all as RFC 3339 strings.
var timeKeys = map[string]bool{
	"joined_at": true, "edited": true, "expiry": true, "after": true, "last_seen": true,
	"created_at": true, "uploaded_at": true, "timeout": true, "closed_at": true,
	"created_time": true, "effective_time": true, "last_acknowledged_policy_change": true,
	"suspended_until": true, "pending_deletion_at": true, "finished_at": true,
}

// secondsBelow tells seconds from milliseconds: a number of milliseconds
// below it would be before March 1973, long before any instance existed,
// while a number of seconds below it runs to the year 5138.
const secondsBelow = 100_000_000_000

// toJSON appends doc as JSON: BSON dates and timestamps under timeKeys
// become RFC 3339 strings, numbers stay numbers, ObjectIds and binary
// become strings. The chat types then decode it with their JSON tags,
// which are the reference's serde names.
func toJSON(b []byte, doc bson.Raw) ([]byte, error) {
	elems, err := doc.Elements()
	if err != nil {
		return b, err
	}
	b = append(b, '{')
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		k := e.Key()
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		if b, err = valueJSON(b, e.Value(), timeKeys[k]); err != nil {
			return b, fmt.Errorf("%s: %w", k, err)
		}
	}
	return append(b, '}'), nil
}

func arrayJSON(b []byte, arr bson.RawArray) ([]byte, error) {
	vals, err := arr.Values()
	if err != nil {
		return b, err
	}
	b = append(b, '[')
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = valueJSON(b, v, false); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func valueJSON(b []byte, v bson.RawValue, isTime bool) ([]byte, error) {
	switch v.Type {
	case bson.TypeString:
		s := v.StringValue()
		if isTime {
			t, err := parseTime(s)
			if err != nil {
				return b, err
			}
			return appendTime(b, t), nil
		}
		return appendString(b, s), nil
	case bson.TypeInt32:
		n := int64(v.Int32())
		if isTime {
			return appendTime(b, timeOfNumber(n)), nil
		}
		return strconv.AppendInt(b, n, 10), nil
	case bson.TypeInt64:
		n := v.Int64()
		if isTime {
			return appendTime(b, timeOfNumber(n)), nil
		}
		return strconv.AppendInt(b, n, 10), nil
	case bson.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return append(b, "null"...), nil
		}
		if isTime {
			return appendTime(b, timeOfNumber(int64(f))), nil
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64), nil
	case bson.TypeDateTime:
		return appendTime(b, time.UnixMilli(v.DateTime()).UTC()), nil
	case bson.TypeTimestamp:
		sec, _ := v.Timestamp()
		return appendTime(b, time.Unix(int64(sec), 0).UTC()), nil
	case bson.TypeBoolean:
		return strconv.AppendBool(b, v.Boolean()), nil
	case bson.TypeNull, bson.TypeUndefined:
		return append(b, "null"...), nil
	case bson.TypeEmbeddedDocument:
		return toJSON(b, v.Document())
	case bson.TypeArray:
		return arrayJSON(b, v.Array())
	case bson.TypeObjectID:
		return appendString(b, v.ObjectID().Hex()), nil
	case bson.TypeBinary:
		_, data := v.Binary()
		return appendString(b, base64.StdEncoding.EncodeToString(data)), nil
	case bson.TypeDecimal128:
		return appendString(b, v.Decimal128().String()), nil
	}
	return b, fmt.Errorf("unexpected BSON type %s", v.Type)
}

// timeOfNumber reads a number of milliseconds, or of seconds when it is
// too small to be milliseconds of this century.
func timeOfNumber(n int64) time.Time {
	if n > -secondsBelow && n < secondsBelow {
		return time.Unix(n, 0).UTC()
	}
	return time.UnixMilli(n).UTC()
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil {
		return t.UTC(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return timeOfNumber(n), nil
	}
	return time.Time{}, fmt.Errorf("timestamp %q is neither RFC 3339 nor a number", s)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	return append(b, '"')
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // escapes like encoding/json; never fails for a string
	return append(b, q...)
}
