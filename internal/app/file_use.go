package app

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/store"
)

// useFile claims an uploaded file for one use: it must exist, carry tag,
// not be deleted and not be used yet; otherwise the client is told
// NotFound. The record is marked used for usedFor (and linked to parent
// as its object) through st, so call it inside the transaction that
// stores the object referring to the file.
func useFile(ctx context.Context, st store.Store, id, tag, usedFor string, parent chat.ID) (*chat.File, error) {
	rec, err := st.FetchFile(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, chat.ErrNotFound.Wrap(err)
	}
	if err != nil {
		return nil, dbError("fetch file", err)
	}
	if rec.Tag != tag || rec.UsedFor != "" || (rec.Deleted != nil && *rec.Deleted) {
		return nil, chat.ErrNotFound
	}
	rec.UsedFor = usedFor
	p := parent
	switch usedFor {
	case fileUseAvatar, fileUseBackground:
		rec.UserID = &p
	default:
		rec.ObjectID = &p
	}
	if err := st.UpdateFile(ctx, rec); err != nil {
		return nil, dbError("update file", err)
	}
	f := rec.File
	return &f, nil
}

// dropFile marks a file that an object no longer uses as deleted, so the
// file service can reclaim it. A file already gone is not an error.
func dropFile(ctx context.Context, st store.Store, f *chat.File) error {
	if f == nil {
		return nil
	}
	rec, err := st.FetchFile(ctx, f.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return dbError("fetch file", err)
	}
	deleted := true
	rec.Deleted = &deleted
	return dbError("update file", st.UpdateFile(ctx, rec))
}

// replaceFile claims the upload id for one use, as useFile does, and
// releases old, the file it replaces (nil when there was none).
func replaceFile(ctx context.Context, st store.Store, id, tag, usedFor string, parent chat.ID, old *chat.File) (*chat.File, error) {
	f, err := useFile(ctx, st, id, tag, usedFor, parent)
	if err != nil {
		return nil, err
	}
	if err := dropFile(ctx, st, old); err != nil {
		return nil, err
	}
	return f, nil
}

// What a file was used for (chat.FileRecord.UsedFor).
const (
	fileUseAvatar     = "user_avatar"
	fileUseBackground = "user_background"
	fileUseIcon       = "channel_icon"
)
