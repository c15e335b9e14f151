package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"ermine/internal/chat"
)

// decode reads the request body as JSON into a T, whatever the
// Content-Type (the JS clients send text/plain). An empty body decodes as
// the zero T, so routes without parameters accept it; unknown fields are
// ignored. Malformed JSON is a 400, well-formed JSON of the wrong shape a
// 422, an oversized body a 413, each with a FailedValidation body naming
// what is wrong. The input rules of checkBody apply (no NUL in any
// string, ids are ULIDs: 422 naming the field); then a T that is a
// chat.Validator is validated.
func decode[T any](w http.ResponseWriter, r *http.Request, limit int64) (T, error) {
	var v T
	body, err := readBody(w, r, limit)
	if err != nil {
		return v, err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &v); err != nil {
			return v, bodyError(err)
		}
		if err := checkBody(body, &v); err != nil {
			return v, err
		}
	}
	if val, ok := any(&v).(chat.Validator); ok {
		if err := val.Validate(); err != nil {
			return v, err
		}
	}
	return v, nil
}

// bodyError describes a JSON decoding failure for the client.
func bodyError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var ce *chat.Error
	switch {
	case errors.As(err, &ce):
		// A field's own UnmarshalJSON rejected its value.
		if ce.Status == 0 && ce.Type == "FailedValidation" {
			ce.Status = http.StatusUnprocessableEntity
		}
		return ce
	case errors.As(err, &syntax):
		return chat.ErrFailedValidation(fmt.Sprintf("body: malformed JSON at offset %d: %v", syntax.Offset, syntax))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return chat.ErrInvalidBody(fmt.Sprintf("%s: expected %s, got %s", field, typ.Type, typ.Value))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return chat.ErrFailedValidation("body: malformed JSON: unexpected end")
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return chat.ErrInvalidBody("body: " + msg)
}

// respond writes v as JSON with status 200.
func respond(w http.ResponseWriter, v any) error {
	writeJSON(w, http.StatusOK, v)
	return nil
}

// noContent writes the empty success of routes documented as 204.
func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}
