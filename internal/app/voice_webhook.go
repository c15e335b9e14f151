package app

// The voice state LiveKit's webhooks drive: participants joining and
// leaving, their tracks published and muted, rooms finishing, and the
// calls (and their call_started messages) these start and end.

import (
	"context"
	"errors"

	"ermine/internal/chat"
	"ermine/internal/event"
	"ermine/internal/perm"
	"ermine/internal/store"
	"ermine/internal/voice"
)

// VoiceWebhook takes a LiveKit webhook: it verifies the signature, then
// turns participants joining and leaving and tracks being published or
// muted into voice state and events.
func (a *App) VoiceWebhook(ctx context.Context, authorization string, body []byte) error {
	if a.voice == nil {
		return chat.ErrLiveKitUnavailable
	}
	ev, err := a.voice.Webhook(authorization, body)
	if err != nil {
		return chat.ErrNotAuthenticated.Wrap(err)
	}
	if ev.Room == "" {
		return nil
	}
	channel := chat.ID(ev.Room)
	switch ev.Kind {
	case voice.ParticipantJoined:
		return a.voiceJoined(ctx, ev, channel)
	case voice.ParticipantLeft, voice.ParticipantConnectionAborted:
		return a.voiceLeft(ctx, channel, chat.ID(ev.User))
	case voice.TrackPublished, voice.TrackUnpublished, voice.TrackMuted, voice.TrackUnmuted:
		return a.voiceTrack(ctx, ev, channel)
	case voice.RoomFinished:
		return a.voiceRoomFinished(ctx, channel)
	}
	return nil
}

// voiceJoined records a participant who connected to a room.
func (a *App) voiceJoined(ctx context.Context, ev *voice.Event, channel chat.ID) error {
	user := chat.ID(ev.User)
	ch, err := a.store.FetchChannel(ctx, channel)
	if errors.Is(err, store.ErrNotFound) {
		// A room for a channel that is gone: send its participant away.
		return a.voice.RemoveParticipant(ctx, ev.Node, ev.Room, ev.User)
	}
	if err != nil {
		return dbError("fetch channel", err)
	}
	u, err := a.store.FetchUser(ctx, user)
	if err != nil {
		return lookupError("fetch user", err)
	}
	p, err := a.channelPermissions(ctx, u, ch)
	if err != nil {
		return err
	}
	if !p.Has(perm.ViewChannel | perm.Connect) {
		return a.voice.RemoveParticipant(ctx, ev.Node, ev.Room, ev.User)
	}
	var m *chat.Member
	if ch.IsServerChannel() {
		if m, err = a.store.FetchMember(ctx, ch.Server, user); err != nil && !errors.Is(err, store.ErrNotFound) {
			return dbError("fetch member", err)
		}
	}
	at := chat.TimeOf(ev.At)
	state := chat.UserVoiceState{ID: user, JoinedAt: at, IsReceiving: voiceGrants(p, m).CanSubscribe}
	vp := &chat.VoiceParticipant{Channel: channel, Server: ch.Server, Node: ev.Node, State: state}
	if !ch.IsServerChannel() {
		vp.Server = ""
	}

	var (
		from     chat.ID
		first    bool
		call     *chat.VoiceCall
		oldEnded *chat.VoiceCall
	)
	err = a.store.InTx(ctx, func(st store.Store) error {
		if old, err := st.FetchVoiceParticipant(ctx, channel, user); err == nil && !old.Left {
			vp.State = old.State // a repeated webhook keeps the state it made
			vp.State.IsReceiving = state.IsReceiving
		}
		mine, err := st.FetchUserVoiceParticipants(ctx, user)
		if err != nil {
			return dbError("fetch voice participants", err)
		}
		for _, o := range mine {
			if o.Channel != channel && o.MovingTo == channel {
				from = o.Channel
				if err := st.DeleteVoiceParticipant(ctx, o.Channel, user); err != nil {
					return dbError("delete voice participant", err)
				}
				if oldEnded, err = a.endIfEmpty(ctx, st, o.Channel); err != nil {
					return err
				}
			}
		}
		call, err = st.FetchVoiceCall(ctx, channel)
		if errors.Is(err, store.ErrNotFound) {
			call = &chat.VoiceCall{Channel: channel, Node: ev.Node}
		} else if err != nil {
			return dbError("fetch voice call", err)
		}
		vp.Node = call.Node
		here, err := st.FetchVoiceParticipants(ctx, []chat.ID{channel})
		if err != nil {
			return dbError("fetch voice participants", err)
		}
		here = liveParticipants(here)
		first = len(here) == 0 || (len(here) == 1 && here[0].State.ID == user)
		if err := st.SetVoiceParticipant(ctx, vp); err != nil {
			return dbError("set voice participant", err)
		}
		if first && call.StartedAt == nil {
			call.StartedAt = &at
			if call.Initiator == "" {
				call.Initiator = user
			}
			call.Message = chat.NewIDAt(ev.At)
		} else {
			first = false
		}
		return dbError("set voice call", st.SetVoiceCall(ctx, call))
	})
	if err != nil {
		return err
	}
	if from != "" {
		a.publish(ctx, chat.VoiceChannelMoveEvent{Type: chat.EvVoiceChannelMove,
			User: user, From: from, To: channel, State: vp.State}, event.Of(from), event.Of(channel))
	} else {
		a.publish(ctx, chat.VoiceChannelJoinEvent{Type: chat.EvVoiceChannelJoin,
			ID: channel, State: vp.State}, event.Of(channel))
	}
	if oldEnded != nil {
		a.callEnded(ctx, oldEnded)
	}
	if first {
		a.callStarted(ctx, ch, call)
	}
	return nil
}

// callStarted posts the call_started message and, in DMs and groups,
// tells each recipient that a call rings.
func (a *App) callStarted(ctx context.Context, ch *chat.Channel, call *chat.VoiceCall) {
	sys := chat.SystemMessage{Type: sysCallStarted, By: call.Initiator}
	nonce := string(call.Message)
	m := &chat.Message{ID: call.Message, Nonce: &nonce, Channel: ch.ID, Author: chat.SystemID, System: &sys}
	if err := a.sends.writer.Write(m); err != nil {
		a.log.ErrorContext(ctx, "insert call_started", "channel", ch.ID, "err", err)
	} else {
		a.sends.lastMessages.Record(ch.ID, m.ID)
		a.publish(ctx, chat.MessageEvent{Type: chat.EvMessage, Message: m}, event.Of(ch.ID))
	}
	if ch.IsServerChannel() {
		return
	}
	ev := chat.VoiceCallUpdateEvent{Type: chat.EvVoiceCallUpdate, InitiatorID: call.Initiator, ChannelID: ch.ID,
		StartedAt: call.StartedAt}
	for _, r := range ch.Recipients {
		if r != call.Initiator {
			a.publish(ctx, ev, event.Private(r))
		}
	}
	a.notifyCall(ctx, ch, call.Initiator)
}

// voiceLeft records a participant who left a room.
func (a *App) voiceLeft(ctx context.Context, channel, user chat.ID) error {
	var (
		moving bool
		gone   bool
		ended  *chat.VoiceCall
	)
	err := a.store.InTx(ctx, func(st store.Store) error {
		vp, err := st.FetchVoiceParticipant(ctx, channel, user)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return dbError("fetch voice participant", err)
		}
		if vp.Left {
			return nil
		}
		if vp.MovingTo != "" && vp.MoveUntil != nil && vp.MoveUntil.After(a.now()) {
			moving = true
			vp.Left = true
			return dbError("set voice participant", st.SetVoiceParticipant(ctx, vp))
		}
		gone = true
		if err := st.DeleteVoiceParticipant(ctx, channel, user); err != nil {
			return dbError("delete voice participant", err)
		}
		ended, err = a.endIfEmpty(ctx, st, channel)
		return err
	})
	if err != nil || moving || !gone {
		return err
	}
	a.publish(ctx, chat.VoiceChannelLeaveEvent{Type: chat.EvVoiceChannelLeave,
		ID: channel, User: user}, event.Of(channel))
	if ended != nil {
		a.callEnded(ctx, ended)
	}
	return nil
}

// endIfEmpty deletes the channel's call when nobody is left in it and
// returns it, or nil while someone is.
func (a *App) endIfEmpty(ctx context.Context, st store.Store, channel chat.ID) (*chat.VoiceCall, error) {
	here, err := st.FetchVoiceParticipants(ctx, []chat.ID{channel})
	if err != nil {
		return nil, dbError("fetch voice participants", err)
	}
	if len(liveParticipants(here)) > 0 {
		return nil, nil
	}
	call, err := st.FetchVoiceCall(ctx, channel)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, dbError("fetch voice call", err)
	}
	if err := st.DeleteVoiceCall(ctx, channel); err != nil {
		return nil, dbError("delete voice call", err)
	}
	return call, nil
}

// callEnded closes the call_started message (finished_at) and, in DMs
// and groups, tells the channel the call ended.
func (a *App) callEnded(ctx context.Context, call *chat.VoiceCall) {
	if call.Message != "" {
		now := chat.TimeOf(a.now())
		var sys *chat.SystemMessage
		err := a.store.InTx(ctx, func(st store.Store) error {
			m, err := st.FetchMessage(ctx, call.Message)
			if err != nil {
				return err
			}
			if m.System == nil || m.System.Type != sysCallStarted {
				return nil
			}
			m.System.FinishedAt = &now
			sys = m.System
			return st.UpdateMessage(ctx, m)
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			a.log.ErrorContext(ctx, "close call_started", "channel", call.Channel, "err", err)
		}
		if sys != nil {
			a.publish(ctx, chat.MessageUpdateEvent{Type: chat.EvMessageUpdate, ID: call.Message,
				Channel: call.Channel, Data: chat.Partial{"system": sys}, Clear: []string{}}, event.Of(call.Channel))
		}
	}
	ch, err := a.store.FetchChannel(ctx, call.Channel)
	if err != nil || ch.IsServerChannel() {
		return
	}
	a.publish(ctx, chat.VoiceCallUpdateEvent{Type: chat.EvVoiceCallUpdate,
		InitiatorID: call.Initiator, ChannelID: call.Channel, StartedAt: call.StartedAt, Ended: true}, event.Of(call.Channel))
}

// voiceTrack records a track being published, removed, muted or unmuted.
func (a *App) voiceTrack(ctx context.Context, ev *voice.Event, channel chat.ID) error {
	user := chat.ID(ev.User)
	if ev.Track.Type == "DATA" {
		// Ermine grants no data channels; a participant that has one is
		// not using a client of ours.
		return a.voice.RemoveParticipant(ctx, ev.Node, ev.Room, ev.User)
	}
	on := (ev.Kind == voice.TrackPublished || ev.Kind == voice.TrackUnmuted) && !(ev.Kind == voice.TrackPublished && ev.Track.Muted)
	var (
		field   string
		changed bool
	)
	err := a.store.InTx(ctx, func(st store.Store) error {
		vp, err := st.FetchVoiceParticipant(ctx, channel, user)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return dbError("fetch voice participant", err)
		}
		var f *bool
		switch ev.Track.Source {
		case voice.SourceCamera:
			field, f = "camera", &vp.State.Camera
		case voice.SourceMicrophone:
			field, f = "is_publishing", &vp.State.IsPublishing
		case voice.SourceScreenShare, voice.SourceScreenShareAudio:
			field, f = "screensharing", &vp.State.Screensharing
		default:
			return nil
		}
		if *f == on {
			return nil
		}
		*f, changed = on, true
		return dbError("set voice participant", st.SetVoiceParticipant(ctx, vp))
	})
	if err != nil || !changed {
		return err
	}
	a.publish(ctx, chat.UserVoiceStateUpdateEvent{Type: chat.EvUserVoiceStateUpdate,
		ID: user, ChannelID: channel, Data: chat.Partial{field: on}}, event.Of(channel))
	return nil
}

// voiceRoomFinished clears a room LiveKit closed.
func (a *App) voiceRoomFinished(ctx context.Context, channel chat.ID) error {
	ps, err := a.store.FetchVoiceParticipants(ctx, []chat.ID{channel})
	if err != nil {
		return dbError("fetch voice participants", err)
	}
	for _, p := range liveParticipants(ps) {
		if err := a.voiceLeft(ctx, channel, p.State.ID); err != nil {
			return err
		}
	}
	var ended *chat.VoiceCall
	if err := a.store.InTx(ctx, func(st store.Store) (err error) {
		ended, err = a.endIfEmpty(ctx, st, channel)
		return err
	}); err != nil {
		return err
	}
	if ended != nil {
		a.callEnded(ctx, ended)
	}
	return nil
}
