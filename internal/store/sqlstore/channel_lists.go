package sqlstore

import (
	"context"
	"fmt"

	json "github.com/goccy/go-json"
	lru "github.com/hashicorp/golang-lru/v2"

	"ermine/internal/chat"
)

// channelListServers is how many servers' channel lists a store keeps
// decoded in memory. A server has at most a few hundred channels.
const channelListServers = 4096

// channelList is a server's channels as read at one channels_version.
type channelList struct {
	version  int64
	channels []*chat.Channel
}

// bumpChannels counts a write to server's channels (see the servers
// table's channels_version); it runs in the writing transaction.
//
// Lock order: a transaction that writes a server's row and a channel's
// takes the server's first. Editing a channel reads (and on PostgreSQL
// locks) the server before the channel, and a write that locked the
// channel first and then bumped its server deadlocked with it there.
func (s *DB) bumpChannels(ctx context.Context, server chat.ID) error {
	if server == "" {
		return nil
	}
	_, err := s.exec(ctx, `UPDATE servers SET channels_version = channels_version + 1 WHERE id = ?`, server)
	return err
}

// FetchServersChannels lists the channels of each of servers. The lists
// of servers read before are kept decoded in memory and checked against
// the servers' channels_version, one number per server, so a Ready of a
// member of hundreds of servers reads and decodes only the lists that
// changed since, on this node or any other. Inside a transaction nothing
// is kept: what it reads may not be committed.
func (s *DB) FetchServersChannels(ctx context.Context, servers []chat.ID) (map[chat.ID][]*chat.Channel, error) {
	versions := make(map[chat.ID]int64, len(servers))
	for chunk := range chunks(servers) {
		if err := s.channelVersions(ctx, chunk, versions); err != nil {
			return nil, err
		}
	}
	return s.channelListsAt(ctx, versions)
}

// channelListsAt lists the channels of each server of versions, taking
// the lists kept at the channels_version given and reading the others.
func (s *DB) channelListsAt(ctx context.Context, versions map[chat.ID]int64) (map[chat.ID][]*chat.Channel, error) {
	out := make(map[chat.ID][]*chat.Channel, len(versions))
	var stale []chat.ID
	for id, v := range versions {
		if l, ok := s.channelLists.Get(id); ok && l.version == v && s.tx == nil {
			out[id] = l.channels
			continue
		}
		stale = append(stale, id)
	}
	read := make(map[chat.ID][]*chat.Channel, len(stale))
	for chunk := range chunks(stale) {
		if err := s.serverChannels(ctx, chunk, read); err != nil {
			return nil, err
		}
	}
	for _, id := range stale {
		list := read[id]
		if list == nil {
			list = []*chat.Channel{}
		}
		out[id] = list
		// The version was read before the channels: a write in between
		// makes the kept list newer than its version says, which only
		// costs one more read.
		if s.tx == nil {
			s.channelLists.Add(id, channelList{version: versions[id], channels: list})
		}
	}
	return out, nil
}

// channelVersions reads the channels_version of servers into versions.
func (s *DB) channelVersions(ctx context.Context, servers []chat.ID, versions map[chat.ID]int64) error {
	rows, err := s.query(ctx, fmt.Sprintf(`SELECT id, channels_version FROM servers WHERE id IN (%s)`, placeholders(len(servers))), idArgs(servers)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id chat.ID
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		versions[id] = v
	}
	return rows.Err()
}

// serverChannels reads the channels of servers into lists, oldest first.
func (s *DB) serverChannels(ctx context.Context, servers []chat.ID, lists map[chat.ID][]*chat.Channel) error {
	rows, err := s.query(ctx, fmt.Sprintf(`SELECT server_id, data FROM channels WHERE server_id IN (%s) ORDER BY server_id, id`,
		placeholders(len(servers))), idArgs(servers)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id chat.ID
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return err
		}
		c := new(chat.Channel)
		if err := json.Unmarshal(data, c); err != nil {
			return fmt.Errorf("decode document: %w", err)
		}
		lists[id] = append(lists[id], c)
	}
	return rows.Err()
}

// chunks splits ids into IN lists of at most maxIn.
func chunks(ids []chat.ID) func(func([]chat.ID) bool) {
	return func(yield func([]chat.ID) bool) {
		for len(ids) > 0 {
			n := min(len(ids), maxIn)
			if !yield(ids[:n]) {
				return
			}
			ids = ids[n:]
		}
	}
}

func idArgs(ids []chat.ID) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = string(id)
	}
	return args
}

func newChannelLists() *lru.Cache[chat.ID, channelList] {
	c, err := lru.New[chat.ID, channelList](channelListServers)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return c
}
