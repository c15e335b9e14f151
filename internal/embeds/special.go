package embeds

import (
	"regexp"

	"ermine/internal/chat"
)

// Sites whose links get a special embed, matched on the page's URL as the
// reference matches them.
var (
	reYouTube    = regexp.MustCompile(`^(?:(?:https?:)?//)?(?:(?:www|m)\.)?(?:youtube\.com|youtu\.be)(?:/(?:[\w\-]+\?v=|embed/|v/|shorts/)?)([\w\-]+)(?:\S+)?$`)
	reTimestamp  = regexp.MustCompile(`(?:\?|&)(?:t|start)=(\w+)`)
	reLightspeed = regexp.MustCompile(`^(?:https?://)?(?:\w+\.)?lightspeed\.tv/([a-z0-9_]{4,25})`)
	reTwitch     = regexp.MustCompile(`^(?:https?://)?(?:www\.|go\.)?twitch\.tv/([a-z0-9_]+)(?:$|\?)`)
	reTwitchVOD  = regexp.MustCompile(`^(?:https?://)?(?:www\.|go\.)?twitch\.tv/videos/([0-9]+)(?:$|\?)`)
	reTwitchClip = regexp.MustCompile(`^(?:https?://)?(?:(?:www\.|go\.)?twitch\.tv/[a-z0-9_]+/clip|clips\.twitch\.tv)/([A-Za-z0-9_-]+)(?:$|\?)`)
	reSpotify    = regexp.MustCompile(`^(?:https?://)?open\.spotify\.com/(?:intl-[a-z]{2}(?:-[a-z]{2})?/)?(track|user|artist|album|playlist|episode|show)/([A-Za-z0-9]+)`)
	reSoundcloud = regexp.MustCompile(`^(?:https?://)?(?:www\.|m\.)?soundcloud\.com/([a-zA-Z0-9-]+)/([A-Za-z0-9-]+)`)
	reBandcamp   = regexp.MustCompile(`^(?:https?://)?[A-Za-z0-9_-]+\.bandcamp\.com/(track|album)/([A-Za-z0-9_-]+)`)
	reBandTrack  = regexp.MustCompile(`track=(\d+)`)
	reBandAlbum  = regexp.MustCompile(`album=(\d+)`)
	reAppleMusic = regexp.MustCompile(`^(?:https?://)?music\.apple\.com/(?:[a-z]{2}/)?album/[a-zA-Z0-9-]+/(\d+)(?:\?i=(\d+))?`)
	reStreamable = regexp.MustCompile(`^(?:https?://)?(?:www\.)?streamable\.com/([\w-]+)`)
	reGIF        = regexp.MustCompile(`^(?:https?://)?(?:www\.)?(?:gifbox\.me/view|yiffbox\.me/view|tenor\.com/view|giphy\.com/gifs|klipy\.com/gifs|gfycat\.com|redgifs\.com/watch)/[\w-]+`)
)

// Forced colours of special embeds (upstream.md §4).
const (
	colourYouTube    = "#FF424F"
	colourTwitch     = "#7B68EE"
	colourLightspeed = "#7445D9"
	colourSpotify    = "#1ABC9C"
	colourSoundcloud = "#FF7F50"
	colourAppleMusic = "#FA233B"
)

// youTubeID returns the video id and timestamp of a YouTube link.
func youTubeID(u string) (id string, timestamp *string, ok bool) {
	m := reYouTube.FindStringSubmatch(u)
	if m == nil {
		return "", nil, false
	}
	if t := reTimestamp.FindStringSubmatch(u); t != nil {
		timestamp = &t[1]
	}
	return m[1], timestamp, true
}

// special recognises a page of a site with its own player. pageURL is the
// page's canonical URL, original the link as it was posted, videoURL the
// page's og:video (Bandcamp ids are only there). It returns nil for an
// ordinary page.
func special(pageURL, original, videoURL string) *chat.Special {
	u := pageURL
	switch {
	case reStreamable.MatchString(u):
		return &chat.Special{Type: "Streamable", ID: reStreamable.FindStringSubmatch(u)[1]}
	case reYouTube.MatchString(u):
		id, ts, _ := youTubeID(u)
		return &chat.Special{Type: "YouTube", ID: id, Timestamp: ts}
	case reLightspeed.MatchString(u):
		return &chat.Special{Type: "Lightspeed", ContentType: "Channel", ID: reLightspeed.FindStringSubmatch(u)[1]}
	case reTwitch.MatchString(u):
		return &chat.Special{Type: "Twitch", ContentType: "Channel", ID: reTwitch.FindStringSubmatch(u)[1]}
	case reTwitchVOD.MatchString(u):
		return &chat.Special{Type: "Twitch", ContentType: "Video", ID: reTwitchVOD.FindStringSubmatch(u)[1]}
	case reTwitchClip.MatchString(u):
		return &chat.Special{Type: "Twitch", ContentType: "Clip", ID: reTwitchClip.FindStringSubmatch(u)[1]}
	case reSpotify.MatchString(u):
		m := reSpotify.FindStringSubmatch(u)
		return &chat.Special{Type: "Spotify", ContentType: m[1], ID: m[2]}
	case reSoundcloud.MatchString(u):
		return &chat.Special{Type: "Soundcloud"}
	case reBandcamp.MatchString(u):
		if m := reBandTrack.FindStringSubmatch(videoURL); m != nil {
			return &chat.Special{Type: "Bandcamp", ContentType: "Track", ID: m[1]}
		}
		if m := reBandAlbum.FindStringSubmatch(videoURL); m != nil {
			return &chat.Special{Type: "Bandcamp", ContentType: "Album", ID: m[1]}
		}
		return nil
	case reGIF.MatchString(u):
		return &chat.Special{Type: "GIF"}
	}
	if m := reAppleMusic.FindStringSubmatch(original); m != nil {
		s := &chat.Special{Type: "AppleMusic", AlbumID: m[1]}
		if m[2] != "" {
			s.TrackID = &m[2]
		}
		return s
	}
	return nil
}

// specialColour is the colour a special embed is always shown with, or ""
// for those that keep the page's own.
func specialColour(s *chat.Special) string {
	switch s.Type {
	case "YouTube":
		return colourYouTube
	case "Twitch":
		return colourTwitch
	case "Lightspeed":
		return colourLightspeed
	case "Spotify":
		return colourSpotify
	case "Soundcloud":
		return colourSoundcloud
	case "AppleMusic":
		return colourAppleMusic
	}
	return ""
}
