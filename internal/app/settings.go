package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/event"
)

// FetchSettings handles POST /sync/settings/fetch: the caller's settings
// with the given keys, or all of them when keys is empty.
func (a *App) FetchSettings(ctx context.Context, c *Caller, keys []string) (map[string]chat.Setting, error) {
	s, err := a.store.FetchSettings(ctx, c.ID(), keys)
	if err != nil {
		return nil, dbError("fetch settings", err)
	}
	if s == nil {
		s = map[string]chat.Setting{}
	}
	return s, nil
}

// SetSettings handles POST /sync/settings/set: each value is stored as
// [timestamp, value], replacing what the key held. The timestamp is the
// client's (it lets clients ignore their own echo) but never later than
// now, nor before the epoch; it is now when not given. The caller's
// connections get UserSettingsUpdate.
func (a *App) SetSettings(ctx context.Context, c *Caller, timestamp *int64, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	now := a.now().UnixMilli()
	ts := now
	if timestamp != nil && *timestamp < now {
		ts = max(*timestamp, 0)
	}
	update := make(map[string]chat.Setting, len(values))
	for k, v := range values {
		update[k] = chat.Setting{Timestamp: ts, Value: v}
	}
	if err := a.store.SetSettings(ctx, c.ID(), update); err != nil {
		return dbError("set settings", err)
	}
	a.publish(ctx, chat.UserSettingsUpdateEvent{
		Type: chat.EvUserSettingsUpdate, ID: c.ID(), Update: update,
	}, event.Private(c.ID()))
	return nil
}
