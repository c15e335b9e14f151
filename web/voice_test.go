package web_test

import (
	"testing"

	"ermine/internal/voice/voicetest"
)

// TestVoice presses the voice join button in Chromium against a real
// LiveKit server (e2e/voice.mjs): the client gets a token from Ermine,
// connects with LiveKit's JS client and publishes Chromium's fake
// microphone; LiveKit's webhooks reach Ermine, whose VoiceChannelJoin and
// VoiceChannelLeave reach another member's events socket.
func TestVoice(t *testing.T) {
	bin := browser(t, "livekit-client")
	lk := voicetest.New(t)
	url := startErmine(t, buildErmine(t), "ERMINE_LIMITS_RATE_LIMITS=false",
		"ERMINE_VOICE_ENABLED=true", "ERMINE_VOICE_NODES_0_NAME=local", "ERMINE_VOICE_NODES_0_URL="+lk.URL,
		"ERMINE_VOICE_NODES_0_PUBLIC_URL="+lk.PublicURL,
		"ERMINE_VOICE_NODES_0_API_KEY="+voicetest.Key, "ERMINE_VOICE_NODES_0_API_SECRET="+voicetest.Secret)
	lk.Start(t, url+"/voice/livekit")
	runScript(t, bin, url, "voice.mjs", "passed", "LIVEKIT_URL="+lk.URL)
}
