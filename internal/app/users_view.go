package app

import (
	"context"

	"ermine/internal/chat"
	"ermine/internal/perm"
)

// viewUser returns target as viewer sees it: relationship and online from
// the viewer's side, relations only for the user themself, and a presence
// of Invisible shown as offline and stripped from the status.
func (a *App) viewUser(ctx context.Context, viewer *chat.User, target *chat.User) (*chat.User, error) {
	v, err := a.withRelations(ctx, viewer)
	if err != nil {
		return nil, err
	}
	u := *target
	u.Relationship = perm.RelationshipOf(v, target)
	u.Relations = nil
	invisible := u.Status != nil && u.Status.Presence != nil && *u.Status.Presence == chat.PresenceInvisible
	if target.ID == viewer.ID {
		u.Relations = v.Relations
		u.Relationship = chat.RelationUser
	}
	if invisible {
		st := *u.Status
		st.Presence = nil
		u.Status = &st
		if st.Text == nil {
			u.Status = nil
		}
	}
	if u.Relationship == chat.RelationBlockedOther {
		u.Status = nil
		u.Online = false
	} else {
		u.Online = !invisible && a.online.Online(target.ID)
	}
	return &u, nil
}
