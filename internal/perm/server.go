package perm

import (
	"math"
	"slices"
	"time"

	"ermine/internal/chat"
)

// ServerFacts is what ForServer needs to know.
type ServerFacts struct {
	// Server is the server; nil grants nothing.
	Server *chat.Server
	// Member is the user's membership, nil when the user is not a member.
	Member *chat.Member
	// UserID is the user asking; it decides ownership. Empty grants nothing.
	UserID chat.ID
	// Privileged is set when the user is platform staff.
	Privileged bool
	// Now decides whether the member's timeout is still running.
	Now time.Time
}

// ForServer returns the user's permissions on the server: GrantAllSafe
// for privileged users and the owner, nothing for non-members, otherwise
// the server default with the member's role overrides applied from the
// largest rank number to the smallest, cut to AllowedInTimeout while the
// member is timed out.
func ForServer(f ServerFacts) Set {
	if f.Privileged {
		return GrantAllSafe
	}
	if f.Server == nil || f.UserID == "" {
		return 0
	}
	if f.Server.Owner == f.UserID {
		return GrantAllSafe
	}
	if f.Member == nil {
		return 0
	}
	var buf [8]rankedOverride
	p := Set(f.Server.DefaultPermissions)
	for _, r := range heldRoles(buf[:0], f.Server, f.Member.Roles, nil) {
		p = p.Apply(r.o)
	}
	if TimedOut(f.Member, f.Now) {
		p &= AllowedInTimeout
	}
	return p & GrantAllSafe
}

// TimedOut reports whether the member's timeout lies after now.
func TimedOut(m *chat.Member, now time.Time) bool {
	return m != nil && m.Timeout != nil && m.Timeout.After(now)
}

// rankedOverride is an override together with the rank of its role.
type rankedOverride struct {
	rank int64
	o    chat.Override
}

// heldRoles appends to buf the overrides of the roles in held that still
// exist on the server, in the order they must be applied: largest rank
// number first, so rank 0 comes last and wins. Roles sharing a rank keep
// the member's order. With channel non-nil the overrides come from the
// channel's role_permissions and roles without an entry there are
// skipped; otherwise they are the roles' own permissions.
func heldRoles(buf []rankedOverride, s *chat.Server, held []chat.ID, channel map[chat.ID]chat.Override) []rankedOverride {
	for _, id := range held {
		role, ok := s.Roles[id]
		if !ok {
			continue
		}
		o := role.Permissions
		if channel != nil {
			if o, ok = channel[id]; !ok {
				continue
			}
		}
		buf = append(buf, rankedOverride{rank: role.Rank, o: o})
	}
	slices.SortStableFunc(buf, func(a, b rankedOverride) int {
		switch {
		case a.rank > b.rank:
			return -1
		case a.rank < b.rank:
			return 1
		}
		return 0
	})
	return buf
}

// MemberRank returns the member's ranking on the server, where smaller
// is more important: math.MinInt64 for the owner, math.MaxInt64 for a
// member without roles, else the smallest rank among the roles the member
// holds that still exist.
func MemberRank(s *chat.Server, m *chat.Member) int64 {
	if m.ID.User == s.Owner {
		return math.MinInt64
	}
	rank := int64(math.MaxInt64)
	for _, id := range m.Roles {
		if role, ok := s.Roles[id]; ok && role.Rank < rank {
			rank = role.Rank
		}
	}
	return rank
}

// CanActOn reports whether an actor of actorRank may act on (kick, ban,
// edit) a member of targetRank: the target must rank strictly below.
func CanActOn(actorRank, targetRank int64) bool { return targetRank > actorRank }

// CanManageRole reports whether an actor of actorRank may edit, delete,
// override or assign a role of roleRank: the role must rank strictly
// below the actor.
func CanManageRole(actorRank, roleRank int64) bool { return roleRank > actorRank }
