package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	json "github.com/goccy/go-json"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// A message is stored once: its id, channel, author and content in their
// own columns, and only the rest in the data document. A chat line of
// 100 characters so takes about half the bytes it would as a whole
// document beside its columns.

// messageCols are the columns a message is read from, in scan order.
const messageCols = `id, channel_id, author_id, content, data`

// messageDoc is what a message's data column holds: the message less
// what its columns hold. Its fields shadow the message's of the same
// JSON names, and being empty they are left out.
type messageDoc struct {
	*chat.Message
	ID      chat.ID `json:"_id,omitempty"`
	Channel chat.ID `json:"channel,omitempty"`
	Author  chat.ID `json:"author,omitempty"`
	Content *string `json:"content,omitempty"`
	// Bot keeps the message's AuthorBot, which its wire form leaves out.
	Bot bool `json:"author_bot,omitempty"`
}

// messageData is the data document of m.
func messageData(m *chat.Message) (document, error) {
	c := stored(m)
	return encode(messageDoc{Message: &c, Bot: m.AuthorBot})
}

// scanMessage reads one row of messageCols.
func scanMessage(scan func(dest ...any) error) (*chat.Message, error) {
	var id, channel, author chat.ID
	var content *string
	var data []byte
	if err := scan(&id, &channel, &author, &content, &data); err != nil {
		return nil, err
	}
	m := new(chat.Message)
	doc := messageDoc{Message: m}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode document: %w", err)
	}
	m.ID, m.Channel, m.Author, m.Content, m.AuthorBot = id, channel, author, content, doc.Bot
	return m, nil
}

// oneMessage reads the message a query of messageCols finds.
func oneMessage(ctx context.Context, s *DB, q string, args ...any) (*chat.Message, error) {
	m, err := scanMessage(s.queryRow(ctx, q, args...).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	return m, err
}

// manyMessages reads the messages a query of messageCols finds.
func manyMessages(ctx context.Context, s *DB, q string, args ...any) ([]*chat.Message, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*chat.Message
	for rows.Next() {
		m, err := scanMessage(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// messagesIn is manyMessages over an IN list of keys (%s in q), in
// chunks; pre are the arguments before the list.
func messagesIn(ctx context.Context, s *DB, q string, keys []chat.ID, pre ...any) ([]*chat.Message, error) {
	var out []*chat.Message
	for chunk := range chunks(keys) {
		part, err := manyMessages(ctx, s, fmt.Sprintf(q, placeholders(len(chunk))), append(append([]any{}, pre...), idArgs(chunk)...)...)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	return out, nil
}
