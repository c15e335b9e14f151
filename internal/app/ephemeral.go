package app

import (
	"context"

	"ermine/internal/chat"
)

// ephemeralBatch is how many expired ephemeral messages one transaction
// of PruneEphemeral removes.
const ephemeralBatch = 500

// PruneEphemeral deletes the ephemeral messages older than the
// configured delay (reference pull request #929), releasing their
// uploads, and tells each one's user with MessageDelete. It returns how
// many it deleted.
func (a *App) PruneEphemeral(ctx context.Context) (int, error) {
	before := chat.FirstIDAt(a.now().Add(-a.settings.Limits.EphemeralDelay))
	total := 0
	for {
		gone, err := a.store.DeleteEphemeralMessages(ctx, before, ephemeralBatch)
		if err != nil {
			return total, dbError("delete ephemeral messages", err)
		}
		var files []string
		for _, m := range gone {
			files = append(files, messageFiles(m)...)
		}
		if err := releaseFiles(ctx, a.store, files); err != nil {
			return total, err
		}
		for _, m := range gone {
			a.publish(ctx, chat.MessageDeleteEvent{Type: chat.EvMessageDelete, ID: m.ID, Channel: m.Channel},
				messageTopic(m))
		}
		total += len(gone)
		if len(gone) < ephemeralBatch {
			return total, nil
		}
	}
}
