// Package embeds makes link previews and proxies remote images: the work
// of the reference's january service. Every request it makes on a user's
// behalf goes through one Client whose dialer refuses addresses that are
// not on the public internet after DNS resolution, on every redirect hop,
// with time and byte caps. Parsing pages (OpenGraph, Twitter cards, plain
// <title>), recognising sites with their own players (YouTube through
// oEmbed, Twitch, Spotify ...) and re-encoding images live here too.
//
// It holds no business rules: the app decides which links of which
// messages are previewed and appends the results to them.
package embeds
