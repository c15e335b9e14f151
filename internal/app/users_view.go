package app

import (
	"context"

	"ermine/internal/chat"
)

// viewUser returns target as viewer sees it: relationship and online from
// the viewer's side, relations only for the user themself, and a presence
// of Invisible shown as offline and stripped from the status.
func (a *App) viewUser(ctx context.Context, viewer *chat.User, target *chat.User) (*chat.User, error) {
	v, err := a.withRelations(ctx, viewer)
	if err != nil {
		return nil, err
	}
	if target.ID != viewer.ID {
		return a.userSeenBy(v, target), nil
	}
	u := *target
	u.Relations = v.Relations
	u.Relationship = chat.RelationUser
	u.Status = withoutInvisible(target.Status)
	u.Online = a.looksOnline(target)
	return &u, nil
}
