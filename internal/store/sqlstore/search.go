package sqlstore

import (
	"strings"
	"unicode"
)

// SearchTerms splits a user's search text into words (letters and digits),
// dropping everything a full-text engine could read as syntax.
func SearchTerms(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// SearchOrder returns the ORDER BY clause for a sort order, with relevance
// as given by the engine.
func SearchOrder(sort, relevance string) string {
	switch sort {
	case "Latest":
		return " ORDER BY m.id DESC"
	case "Oldest":
		return " ORDER BY m.id ASC"
	}
	return " ORDER BY " + relevance + ", m.id DESC"
}

// SearchRange returns the id range conditions on m.id and their args.
func SearchRange(before, after string) (string, []any) {
	var where string
	var args []any
	if before != "" {
		where += " AND m.id < ?"
		args = append(args, before)
	}
	if after != "" {
		where += " AND m.id > ?"
		args = append(args, after)
	}
	return where, args
}
