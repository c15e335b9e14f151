package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// SearchWindow is how many of a channel's matches, newest first (oldest
// first for the Oldest order), one search reads at most: a word in every
// message of a channel of a million would otherwise cost a million
// matches ranked. Relevance orders the matches within this window.
const SearchWindow = 1000

// SearchTerms splits a user's search text into words (letters and digits),
// dropping everything a full-text engine could read as syntax.
func SearchTerms(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// SearchRange returns the id range conditions on m.id, with the
// condition leaving out ephemeral messages neither for nor from viewer,
// and their args.
func SearchRange(before, after string, viewer chat.ID) (string, []any) {
	where := " AND (m.ephemeral IS NULL OR m.ephemeral = ? OR m.author_id = ?)"
	args := []any{viewer, viewer}
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

// SearchWalk is the order a dialect's Search reads matches in: newest
// first, or oldest first for the Oldest order.
func SearchWalk(sort string) string {
	if sort == store.SortOldest {
		return "ASC"
	}
	return "DESC"
}

// hit is one match of a search: its id and its text.
type hit struct {
	id      chat.ID
	content string
	score   float64
}

// searchText runs the dialect's full-text match, which reads up to
// SearchWindow of the channel's matches (id and content), orders them
// here, the same way on every engine, and loads the page.
func (s *DB) searchText(ctx context.Context, q store.MessageSearch) ([]*chat.Message, error) {
	// Every order reads a whole window, not just a page: the planner of
	// PostgreSQL picks its plan by the limit, and a small one made it walk
	// a channel of a million for a rare word; and engines that walk in
	// storage order may see ids of one group commit out of order.
	rows, err := s.d.Search(ctx, s.r(), q, SearchWindow)
	if err != nil {
		return nil, err
	}
	hits, err := scanHits(rows)
	if err != nil {
		return nil, err
	}
	switch q.Sort {
	case store.SortLatest:
		slices.SortFunc(hits, func(a, b hit) int { return strings.Compare(string(b.id), string(a.id)) })
	case store.SortOldest:
		slices.SortFunc(hits, func(a, b hit) int { return strings.Compare(string(a.id), string(b.id)) })
	default:
		rank(hits, SearchTerms(q.Query))
	}
	hits = hits[:min(len(hits), q.Limit)]
	ids := make([]chat.ID, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	found, err := messagesIn(ctx, s, `SELECT `+messageCols+` FROM messages WHERE id IN (%s)`, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[chat.ID]*chat.Message, len(found))
	for _, m := range found {
		byID[m.ID] = m
	}
	out := make([]*chat.Message, 0, len(ids))
	for _, id := range ids {
		if m := byID[id]; m != nil { // deleted meanwhile
			out = append(out, m)
		}
	}
	return out, nil
}

// scanHits reads a dialect's search rows.
func scanHits(rows *sql.Rows) ([]hit, error) {
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		var content *string
		if err := rows.Scan(&h.id, &content); err != nil {
			return nil, err
		}
		if content != nil {
			h.content = *content
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// rank orders hits by relevance to terms, most relevant first, newest
// first among equals. Relevance is Okapi BM25 over the window: every hit
// holds every term, so a term's rarity weighs all hits alike and only
// how often the terms occur in a message, against its length, counts.
func rank(hits []hit, terms []string) {
	const k1, b = 1.2, 0.75
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		want[foldWord(t)] = true
	}
	lengths := make([]int, len(hits))
	total := 0
	tfs := make([]map[string]int, len(hits))
	for i, h := range hits {
		words := SearchTerms(h.content)
		lengths[i] = len(words)
		total += len(words)
		tf := map[string]int{}
		for _, w := range words {
			if f := foldWord(w); want[f] {
				tf[f]++
			}
		}
		tfs[i] = tf
	}
	avg := 1.0
	if total > 0 {
		avg = float64(total) / float64(len(hits))
	}
	for i := range hits {
		score := 0.0
		norm := k1 * (1 - b + b*float64(lengths[i])/avg)
		for _, f := range tfs[i] {
			score += float64(f) * (k1 + 1) / (float64(f) + norm)
		}
		hits[i].score = score
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(string(b.id), string(a.id))
	})
}

// fold lower-cases a word and strips its diacritics, as the full-text
// indexes compare words.
var fold = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

func foldWord(w string) string {
	out, _, err := transform.String(fold, strings.ToLower(w))
	if err != nil {
		return strings.ToLower(w)
	}
	return out
}
