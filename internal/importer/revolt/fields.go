package revolt

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// known lists, per collection, the top-level fields the reference's
// models write (serde names, including the ones Ermine has no place
// for). Others are reported as ignored; user_settings is a map and has
// none.
var known = knownFields()

func knownFields() map[string]map[string]bool {
	known := map[string]map[string]bool{}
	for coll, fields := range map[string]string{
		"accounts":         "_id email email_normalised password disabled verification password_reset deletion lockout mfa",
		"users":            "_id username discriminator display_name pronouns avatar relations badges status profile flags privileged bot suspended_until last_acknowledged_policy_change",
		"sessions":         "_id user_id token name last_seen origin subscription",
		"mfa_tickets":      "_id account_id token validated authorised last_totp_code",
		"account_invites":  "_id used claimed_by",
		"bots":             "_id owner token public analytics discoverable interactions_url terms_of_service_url privacy_policy_url flags",
		"attachments":      "_id tag filename hash uploaded_at uploader_id used_for deleted reported metadata content_type size message_id user_id server_id object_id",
		"servers":          "_id owner name description channels categories system_messages roles default_permissions icon banner flags nsfw analytics discoverable",
		"server_members":   "_id joined_at nickname pronouns avatar roles timeout can_publish can_receive pending_deletion_at",
		"server_bans":      "_id reason",
		"channels":         "channel_type _id user active recipients last_message_id name owner description icon permissions nsfw server default_permissions role_permissions voice slowmode",
		"channel_invites":  "type _id server creator channel",
		"channel_webhooks": "_id name avatar creator_id channel_id permissions token",
		"emojis":           "_id parent creator_id name animated nsfw",
		"messages":         "_id nonce channel author user member webhook content system attachments edited embeds mentions role_mentions replies reactions interactions masquerade pinned flags",
		"channel_unreads":  "_id last_id mentions",
		"safety_reports":   "_id author_id content additional_context status rejection_reason closed_at notes",
		"audit_logs":       "_id expires_at server reason user target action",
		"policy_changes":   "_id created_time effective_time description url",
	} {
		known[coll] = map[string]bool{}
		for _, f := range strings.Fields(fields) {
			known[coll][f] = true
		}
	}
	return known
}

// unknownFields returns the top-level fields of doc the collection's
// model does not have.
func unknownFields(coll string, doc bson.Raw) []string {
	k := known[coll]
	if k == nil {
		return nil
	}
	elems, err := doc.Elements()
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range elems {
		if key := e.Key(); !k[key] {
			out = append(out, key)
		}
	}
	return out
}
