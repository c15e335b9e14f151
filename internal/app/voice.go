package app

// Voice use cases: joining a call, ringing, and what other use cases ask
// of calls (disconnecting, moving, re-applying permissions, the voice
// states of Ready). The state LiveKit's webhooks drive (who is connected,
// their tracks, calls starting and ending) is in voice_webhook.go.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
	"ermine/internal/voice"
)

// Voice timings, as the reference has them.
const (
	voiceTokenTTL = 10 * time.Second // a join token only has to reach LiveKit
	voiceRingTime = 10 * time.Second // how long recipients of a new call are rung
	voiceMoveTime = 10 * time.Second // how long a moved user has to arrive
)

const sysCallStarted = "call_started"

// DefaultVoiceNode is the node name the official clients always ask for
// (the reference's self-hosted set-up names its node so): on an instance
// without a node of that name, it means the default (first) node.
const DefaultVoiceNode = "worldwide"

// voiceCapable reports whether a channel carries calls: DMs and groups
// always, server channels when they have voice information.
func voiceCapable(ch *chat.Channel) bool {
	switch ch.ChannelType {
	case chat.ChannelDirectMessage, chat.ChannelGroup:
		return true
	case chat.ChannelText, chat.ChannelVoice:
		return ch.Voice != nil || ch.ChannelType == chat.ChannelVoice
	}
	return false
}

// voiceGrants turns channel permissions (and a member's server mute and
// deafen) into what LiveKit lets the participant do.
func voiceGrants(p perm.Set, m *chat.Member) voice.Grants {
	var g voice.Grants
	if p.Has(perm.Speak) {
		g.Sources = append(g.Sources, voice.SourceMicrophone)
	}
	if p.Has(perm.Video) {
		g.Sources = append(g.Sources, voice.SourceCamera, voice.SourceScreenShare, voice.SourceScreenShareAudio)
	}
	g.CanSubscribe = p.Has(perm.Listen)
	if m != nil && m.CanPublish != nil && !*m.CanPublish {
		g.Sources = nil
	}
	if m != nil && m.CanReceive != nil && !*m.CanReceive {
		g.CanSubscribe = false
	}
	g.CanPublish = len(g.Sources) > 0
	return g
}

// liveParticipants drops the rows of users who left during a move.
func liveParticipants(ps []*chat.VoiceParticipant) []*chat.VoiceParticipant {
	return slices.DeleteFunc(ps, func(p *chat.VoiceParticipant) bool { return p.Left })
}

// voiceToken mints a join token for user in ch on node, with grants from
// their current permissions.
func (a *App) voiceToken(ctx context.Context, u *chat.User, ch *chat.Channel, node string, p perm.Set) (string, error) {
	var m *chat.Member
	if ch.IsServerChannel() {
		var err error
		m, err = a.store.FetchMember(ctx, ch.Server, u.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", dbError("fetch member", err)
		}
	}
	meta, err := json.Marshal(u)
	if err != nil {
		return "", err
	}
	token, err := a.voice.Token(node, string(ch.ID), voice.Participant{Identity: string(u.ID),
		Name: u.Username + "#" + u.Discriminator, Metadata: string(meta)}, voiceGrants(p, m), voiceTokenTTL)
	if err != nil {
		return "", chat.ErrLiveKitUnavailable.Wrap(err)
	}
	return token, nil
}

// createRoom makes sure the channel's room exists on node.
func (a *App) createRoom(ctx context.Context, ch *chat.Channel, node string) error {
	meta := map[string]any{"server": nil}
	if ch.IsServerChannel() {
		meta["server"] = ch.Server
	}
	b, _ := json.Marshal(meta)
	if err := a.voice.CreateRoom(ctx, node, string(ch.ID), string(b)); err != nil {
		return chat.ErrLiveKitUnavailable.Wrap(err)
	}
	return nil
}

// JoinCall hands the caller a token for the call of a DM, a group or a
// voice-enabled server channel (Connect), on the node the call lives on
// or, for a new call, the node asked for (the first node by default, and
// for "worldwide" when no node has that name).
func (a *App) JoinCall(ctx context.Context, c *Caller, id chat.ID, data chat.JoinCall) (*chat.VoiceToken, error) {
	if a.voice == nil || len(a.voice.Nodes()) == 0 {
		return nil, chat.ErrLiveKitUnavailable
	}
	force := data.ForceDisconnect != nil && *data.ForceDisconnect
	if c.IsBot() && force {
		return nil, chat.ErrIsBot
	}
	ch, p, err := a.requireChannel(ctx, c.User, id)
	if err != nil {
		return nil, err
	}
	if !voiceCapable(ch) {
		return nil, chat.ErrNotAVoiceChannel
	}
	if err := perm.Require(p, perm.Connect); err != nil {
		return nil, err
	}
	here, err := a.store.FetchVoiceParticipants(ctx, []chat.ID{ch.ID})
	if err != nil {
		return nil, dbError("fetch voice participants", err)
	}
	here = liveParticipants(here)
	if ch.Voice != nil && ch.Voice.MaxUsers != nil && len(here) >= int(*ch.Voice.MaxUsers) &&
		!p.Has(perm.ManageChannel) && !slices.ContainsFunc(here, func(v *chat.VoiceParticipant) bool { return v.State.ID == c.ID() }) {
		return nil, chat.ErrCannotJoinCall
	}

	call, err := a.store.FetchVoiceCall(ctx, ch.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		call = nil
	case err != nil:
		return nil, dbError("fetch voice call", err)
	}
	var node string
	switch {
	case call != nil:
		node = call.Node
	case data.Node != nil:
		node = *data.Node
	default:
		node = a.voice.Nodes()[0].Name
	}
	n, ok := a.voice.Node(node)
	if !ok && node == DefaultVoiceNode {
		n, ok = a.voice.Nodes()[0], true
	}
	if !ok {
		return nil, chat.ErrUnknownNode
	}

	mine, err := a.store.FetchUserVoiceParticipants(ctx, c.ID())
	if err != nil {
		return nil, dbError("fetch voice participants", err)
	}
	mine = liveParticipants(mine)
	if len(mine) > 0 && !c.IsBot() {
		if !force {
			return nil, chat.ErrAlreadyConnected
		}
		for _, v := range mine {
			a.dropParticipant(ctx, v)
		}
	}

	token, err := a.voiceToken(ctx, c.User, ch, n.Name, p)
	if err != nil {
		return nil, err
	}
	if err := a.createRoom(ctx, ch, n.Name); err != nil {
		return nil, err
	}
	if call == nil {
		call = &chat.VoiceCall{Channel: ch.ID, Node: n.Name}
	}
	if len(here) == 0 && len(data.Recipients) > 0 && !ch.IsServerChannel() {
		call.Initiator = c.ID()
		call.Ring = nil
		for _, r := range data.Recipients {
			if r != c.ID() && ch.HasRecipient(r) && !slices.Contains(call.Ring, r) {
				call.Ring = append(call.Ring, r)
			}
		}
		until := chat.TimeOf(a.now().Add(voiceRingTime))
		call.RingUntil = &until
	}
	if err := a.store.SetVoiceCall(ctx, call); err != nil {
		return nil, dbError("set voice call", err)
	}
	return &chat.VoiceToken{Token: token, URL: n.PublicURL}, nil
}

// EndRing stops ringing user for the caller's DM or group call: NoEffect
// in server channels, NotConnected when the caller is not in the call,
// NotFound when user is not a recipient.
func (a *App) EndRing(ctx context.Context, c *Caller, id, user chat.ID) error {
	ch, _, err := a.requireChannel(ctx, c.User, id)
	if err != nil {
		return err
	}
	if ch.IsServerChannel() || !voiceCapable(ch) {
		return chat.ErrNoEffect
	}
	if _, err := a.store.FetchVoiceParticipant(ctx, ch.ID, c.ID()); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return chat.ErrNotConnected
		}
		return dbError("fetch voice participant", err)
	}
	if !ch.HasRecipient(user) {
		return chat.ErrNotFound
	}
	initiator := c.ID()
	err = a.store.InTx(ctx, func(st store.Store) error {
		call, err := st.FetchVoiceCall(ctx, ch.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return dbError("fetch voice call", err)
		}
		if call.Initiator != "" {
			initiator = call.Initiator
		}
		call.Ring = slices.DeleteFunc(call.Ring, func(r chat.ID) bool { return r == user })
		return dbError("set voice call", st.SetVoiceCall(ctx, call))
	})
	if err != nil {
		return err
	}
	a.publish(ctx, chat.VoiceCallUpdateEvent{Type: chat.EvVoiceCallUpdate,
		InitiatorID: initiator, ChannelID: ch.ID, Ended: true}, event.Private(user))
	return nil
}

// disconnectVoice takes a participant out of their call: out of the
// LiveKit room, out of the store, and tells the channel.
func (a *App) disconnectVoice(ctx context.Context, vp *chat.VoiceParticipant) error {
	if a.voice != nil {
		if err := a.voice.RemoveParticipant(ctx, vp.Node, string(vp.Channel), string(vp.State.ID)); err != nil {
			a.log.WarnContext(ctx, "remove voice participant", "channel", vp.Channel, "user", vp.State.ID, "err", err)
		}
	}
	vp.MovingTo, vp.MoveUntil = "", nil
	return a.voiceLeft(ctx, vp.Channel, vp.State.ID)
}

// disconnectUserFrom disconnects user from the voice channels among
// channels (all of a server's when server is set).
func (a *App) disconnectUserFrom(ctx context.Context, user, server chat.ID, channels ...chat.ID) {
	mine, err := a.store.FetchUserVoiceParticipants(ctx, user)
	if err != nil {
		a.log.ErrorContext(ctx, "fetch voice participants", "user", user, "err", err)
		return
	}
	for _, vp := range mine {
		if (server != "" && vp.Server == server) || slices.Contains(channels, vp.Channel) {
			a.dropParticipant(ctx, vp)
		}
	}
}

// dropParticipant disconnects vp, clearing a pending move first so that
// the leave is told.
func (a *App) dropParticipant(ctx context.Context, vp *chat.VoiceParticipant) {
	if vp.MovingTo != "" || vp.Left {
		vp.MovingTo, vp.MoveUntil, vp.Left = "", nil, false
		if err := a.store.SetVoiceParticipant(ctx, vp); err != nil {
			a.log.ErrorContext(ctx, "set voice participant", "err", err)
		}
	}
	if err := a.disconnectVoice(ctx, vp); err != nil {
		a.log.ErrorContext(ctx, "disconnect voice", "channel", vp.Channel, "user", vp.State.ID, "err", err)
	}
}

// closeVoiceChannels ends the calls of deleted channels: everyone is
// disconnected and the rooms' state goes.
func (a *App) closeVoiceChannels(ctx context.Context, channels ...chat.ID) {
	ps, err := a.store.FetchVoiceParticipants(ctx, channels)
	if err != nil {
		a.log.ErrorContext(ctx, "fetch voice participants", "err", err)
		return
	}
	for _, vp := range ps {
		a.dropParticipant(ctx, vp)
	}
	for _, id := range channels {
		if err := a.store.DeleteVoiceCall(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			a.log.ErrorContext(ctx, "delete voice call", "channel", id, "err", err)
		}
	}
}

// syncServerVoice re-applies permissions to everyone connected to a
// server's voice channels after a permission, role, rank or member
// change: LiveKit gets the new grants, clients a UserVoiceStateUpdate
// when receiving changed, and who may no longer connect is disconnected.
func (a *App) syncServerVoice(ctx context.Context, server chat.ID, only ...chat.ID) {
	if a.voice == nil {
		return
	}
	ps, err := a.store.FetchServerVoiceParticipants(ctx, server)
	if err != nil {
		a.log.ErrorContext(ctx, "fetch voice participants", "server", server, "err", err)
		return
	}
	for _, vp := range liveParticipants(ps) {
		if len(only) > 0 && !slices.Contains(only, vp.State.ID) {
			continue
		}
		if err := a.syncParticipant(ctx, vp); err != nil {
			a.log.ErrorContext(ctx, "sync voice permissions", "channel", vp.Channel, "user", vp.State.ID, "err", err)
		}
	}
}

// syncParticipant re-applies one participant's permissions.
func (a *App) syncParticipant(ctx context.Context, vp *chat.VoiceParticipant) error {
	ch, err := a.store.FetchChannel(ctx, vp.Channel)
	if err != nil {
		return err
	}
	u, err := a.store.FetchUser(ctx, vp.State.ID)
	if err != nil {
		return err
	}
	p, err := a.channelPermissions(ctx, u, ch)
	if err != nil {
		return err
	}
	if !p.Has(perm.ViewChannel | perm.Connect) {
		return a.disconnectVoice(ctx, vp)
	}
	var m *chat.Member
	if ch.IsServerChannel() {
		if m, err = a.store.FetchMember(ctx, ch.Server, u.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	g := voiceGrants(p, m)
	if err := a.voice.UpdateParticipant(ctx, vp.Node, string(vp.Channel), string(u.ID), g); err != nil {
		return err
	}
	data := chat.Partial{}
	if vp.State.IsReceiving != g.CanSubscribe {
		vp.State.IsReceiving = g.CanSubscribe
		data["is_receiving"] = g.CanSubscribe
	}
	if !slices.Contains(g.Sources, voice.SourceMicrophone) && vp.State.IsPublishing {
		vp.State.IsPublishing = false
		data["is_publishing"] = false
	}
	if !slices.Contains(g.Sources, voice.SourceCamera) && (vp.State.Camera || vp.State.Screensharing) {
		vp.State.Camera, vp.State.Screensharing = false, false
		data["camera"], data["screensharing"] = false, false
	}
	if len(data) == 0 {
		return nil
	}
	if err := a.store.SetVoiceParticipant(ctx, vp); err != nil {
		return err
	}
	a.publish(ctx, chat.UserVoiceStateUpdateEvent{Type: chat.EvUserVoiceStateUpdate,
		ID: u.ID, ChannelID: vp.Channel, Data: data}, event.Of(vp.Channel))
	return nil
}

// moveMember moves a member connected to one of the server's voice
// channels to another (MoveMembers, checked by the caller): the member
// gets a token for the new room on their private topic, is removed from
// the old room, and their arrival is told as VoiceChannelMove.
func (a *App) moveMember(ctx context.Context, server chat.ID, user chat.ID, to chat.ID) error {
	if a.voice == nil {
		return chat.ErrLiveKitUnavailable
	}
	mine, err := a.store.FetchUserVoiceParticipants(ctx, user)
	if err != nil {
		return dbError("fetch voice participants", err)
	}
	var from *chat.VoiceParticipant
	for _, vp := range liveParticipants(mine) {
		if vp.Server == server {
			from = vp
		}
	}
	if from == nil {
		return chat.ErrNotConnected
	}
	ch, err := a.store.FetchChannel(ctx, to)
	if err != nil || ch.Server != server {
		return chat.ErrUnknownChannel
	}
	if !voiceCapable(ch) {
		return chat.ErrNotAVoiceChannel
	}
	if from.Channel == to {
		return chat.ErrAlreadyConnected
	}
	u, err := a.store.FetchUser(ctx, user)
	if err != nil {
		return lookupError("fetch user", err)
	}
	p, err := a.channelPermissions(ctx, u, ch)
	if err != nil {
		return err
	}
	if !p.Has(perm.ViewChannel) {
		return chat.ErrUnknownChannel
	}
	if err := perm.Require(p, perm.Connect); err != nil {
		return err
	}
	node := from.Node
	call, err := a.store.FetchVoiceCall(ctx, to)
	switch {
	case err == nil:
		node = call.Node
	case errors.Is(err, store.ErrNotFound):
		call = &chat.VoiceCall{Channel: to, Node: node}
	default:
		return dbError("fetch voice call", err)
	}
	token, err := a.voiceToken(ctx, u, ch, node, p)
	if err != nil {
		return err
	}
	if err := a.createRoom(ctx, ch, node); err != nil {
		return err
	}
	if err := a.store.SetVoiceCall(ctx, call); err != nil {
		return dbError("set voice call", err)
	}
	until := chat.TimeOf(a.now().Add(voiceMoveTime))
	from.MovingTo, from.MoveUntil = to, &until
	if err := a.store.SetVoiceParticipant(ctx, from); err != nil {
		return dbError("set voice participant", err)
	}
	a.publish(ctx, chat.UserMoveVoiceChannelEvent{Type: chat.EvUserMoveVoiceChannel,
		Node: node, From: from.Channel, To: to, Token: token}, event.Private(user))
	if err := a.voice.RemoveParticipant(ctx, from.Node, string(from.Channel), string(user)); err != nil {
		a.log.WarnContext(ctx, "remove moved participant", "err", err)
	}
	return nil
}

// voiceStates groups the participants of channels for Ready and
// ServerCreate: one entry per channel someone is connected to.
func (a *App) voiceStates(ctx context.Context, channels []chat.ID) ([]chat.VoiceState, error) {
	out := []chat.VoiceState{}
	if len(channels) == 0 {
		return out, nil
	}
	ps, err := a.store.FetchVoiceParticipants(ctx, channels)
	if err != nil {
		return nil, dbError("fetch voice participants", err)
	}
	for _, vp := range liveParticipants(ps) {
		if n := len(out); n > 0 && out[n-1].ID == vp.Channel {
			out[n-1].Participants = append(out[n-1].Participants, vp.State)
			continue
		}
		out = append(out, chat.VoiceState{ID: vp.Channel, Participants: []chat.UserVoiceState{vp.State}})
	}
	return out, nil
}

// syncChannelVoice re-applies permissions to everyone in one channel's
// call after its permission overrides changed.
func (a *App) syncChannelVoice(ctx context.Context, channel chat.ID) {
	if a.voice == nil {
		return
	}
	ps, err := a.store.FetchVoiceParticipants(ctx, []chat.ID{channel})
	if err != nil {
		a.log.ErrorContext(ctx, "fetch voice participants", "channel", channel, "err", err)
		return
	}
	for _, vp := range liveParticipants(ps) {
		if err := a.syncParticipant(ctx, vp); err != nil {
			a.log.ErrorContext(ctx, "sync voice permissions", "channel", vp.Channel, "user", vp.State.ID, "err", err)
		}
	}
}

// disconnectUserEverywhere takes a user out of every call, as when their
// bot is deleted.
func (a *App) disconnectUserEverywhere(ctx context.Context, user chat.ID) {
	mine, err := a.store.FetchUserVoiceParticipants(ctx, user)
	if err != nil {
		a.log.ErrorContext(ctx, "fetch voice participants", "user", user, "err", err)
		return
	}
	for _, vp := range mine {
		a.dropParticipant(ctx, vp)
	}
}
