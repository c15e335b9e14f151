// Package github turns GitHub's webhook deliveries into the text embeds
// an Ermine webhook posts for them (POST /webhooks/{id}/{token}/github):
// the payload format of an outside party, kept out of app, which only
// decides who may post.
package github

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"ermine/internal/chat"
)

// Colours of the embeds GitHub events become (upstream.md §3).
const (
	green       = "#0f890f"
	red         = "#e73e3e"
	grey        = "#202224"
	blue        = "#279adc"
	orange      = "#d76a34"
	lightOrange = "#d9916d"
)

// The parts of GitHub's webhook payloads the embeds show. Fields GitHub
// always sends but the embeds do not use are not decoded.
type (
	user struct {
		Login     string `json:"login"`
		AvatarURL string `json:"avatar_url"`
		HTMLURL   string `json:"html_url"`
	}
	repo struct {
		FullName string `json:"full_name"`
		HTMLURL  string `json:"html_url"`
	}
	pushedCommit struct {
		ID      string `json:"id"`
		URL     string `json:"url"`
		Message string `json:"message"`
		Author  struct {
			Name string `json:"name"`
		} `json:"author"`
	}
	comment struct {
		Body     string  `json:"body"`
		HTMLURL  string  `json:"html_url"`
		CommitID *string `json:"commit_id"`
		User     *user   `json:"user"`
	}
	// item is an issue, pull request or discussion.
	item struct {
		Number  int64   `json:"number"`
		Title   string  `json:"title"`
		HTMLURL string  `json:"html_url"`
		Body    *string `json:"body"`
	}
	payload struct {
		Action     string `json:"action"`
		Sender     *user  `json:"sender"`
		Repository *repo  `json:"repository"`

		// push
		Ref     string         `json:"ref"`
		After   string         `json:"after"`
		Compare string         `json:"compare"`
		Forced  bool           `json:"forced"`
		Commits []pushedCommit `json:"commits"`
		// create, delete
		RefType string `json:"ref_type"`
		// commit_comment, issue_comment, discussion_comment
		Comment *comment `json:"comment"`
		// discussion (answered)
		Answer *comment `json:"answer"`
		// fork
		Forkee *repo `json:"forkee"`
		// issues, issue_comment, pull_request, discussion*
		Issue       *item  `json:"issue"`
		PullRequest *item  `json:"pull_request"`
		Discussion  *item  `json:"discussion"`
		Number      *int64 `json:"number"`
	}
)

// Embed turns one GitHub webhook delivery (the X-GitHub-Event name
// and the JSON body) into the text embed a webhook posts for it, or nil
// when the event or action is one that posts nothing (ping, an unstar, a
// label change…). An unknown event, a body that is not JSON or one
// lacking what the event's embed shows is InvalidOperation.
func Embed(event string, body []byte) (*chat.SendableEmbed, error) {
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, chat.ErrInvalidOperation.Wrap(fmt.Errorf("github %s payload: %w", event, err))
	}
	if event == "ping" {
		return nil, nil
	}
	if _, known := events[event]; !known {
		return nil, chat.ErrInvalidOperation
	}
	if p.Sender == nil || p.Sender.Login == "" || p.Repository == nil || p.Repository.FullName == "" {
		return nil, chat.ErrInvalidOperation
	}
	desc, colour, by, err := events[event](&p)
	if err != nil || desc == "" {
		return nil, err
	}
	if by == nil {
		by = p.Sender
	}
	return textEmbed(by, desc, colour), nil
}

// events describe each handled event: the embed's markdown, its
// colour and, when not the sender, whose name and picture head it. An
// empty description posts nothing.
var events = map[string]func(p *payload) (desc, colour string, by *user, err error){
	"star":               onStar,
	"push":               onPush,
	"commit_comment":     onCommitComment,
	"create":             onCreate,
	"delete":             onDelete,
	"discussion":         onDiscussion,
	"discussion_comment": onDiscussionComment,
	"fork":               onFork,
	"issues":             onIssues,
	"issue_comment":      onIssueComment,
	"pull_request":       onPullRequest,
}

// errGitHubPayload answers a delivery that lacks what its event needs.
var errGitHubPayload = chat.ErrInvalidOperation

func onStar(p *payload) (string, string, *user, error) {
	if p.Action != "created" {
		return "", "", nil, nil
	}
	return fmt.Sprintf("#### [[%s] New star added](%s)", p.Repository.FullName, p.Repository.HTMLURL), grey, nil, nil
}

func onPush(p *payload) (string, string, *user, error) {
	if p.Ref == "" {
		return "", "", nil, errGitHubPayload
	}
	branch := p.Ref
	if parts := strings.SplitN(p.Ref, "/", 3); len(parts) == 3 {
		branch = parts[2]
	}
	if p.Forced {
		return fmt.Sprintf("#### [%s] Branch %s was force-pushed to %s\n[compare changes](%s)",
			p.Repository.FullName, branch, shortSHA(p.After), p.Compare), red, nil, nil
	}
	lines := make([]string, 0, len(p.Commits))
	for _, c := range p.Commits {
		first, _, _ := strings.Cut(c.Message, "\n")
		lines = append(lines, fmt.Sprintf("[`%s`](%s) %s - %s", shortSHA(c.ID), c.URL, cutText(first, 50), c.Author.Name))
	}
	title := fmt.Sprintf("[[%s:%s] %d new commit](%s)", p.Repository.FullName, branch, len(p.Commits), p.Compare)
	return "#### " + title + "\n" + cutText(strings.Join(lines, "\n"), 1000), blue, nil, nil
}

func onCommitComment(p *payload) (string, string, *user, error) {
	c := p.Comment
	if c == nil {
		return "", "", nil, errGitHubPayload
	}
	commit := ""
	if c.CommitID != nil {
		commit = shortSHA(*c.CommitID)
	}
	return fmt.Sprintf("#### [[%s] New comment on commit `%s`](%s)\n%s",
		p.Repository.FullName, commit, c.HTMLURL, cutText(c.Body, 450)), grey, nil, nil
}

func onCreate(p *payload) (string, string, *user, error) {
	if p.Ref == "" || p.RefType == "" {
		return "", "", nil, errGitHubPayload
	}
	return fmt.Sprintf("#### [%s] New %s created: %s", p.Repository.FullName, p.RefType, p.Ref), grey, nil, nil
}

func onDelete(p *payload) (string, string, *user, error) {
	if p.Ref == "" || p.RefType == "" {
		return "", "", nil, errGitHubPayload
	}
	return fmt.Sprintf("#### [%s] %s deleted: %s", p.Repository.FullName, p.RefType, p.Ref), grey, nil, nil
}

func onDiscussion(p *payload) (string, string, *user, error) {
	d := p.Discussion
	switch p.Action {
	case "created":
		if d == nil {
			return "", "", nil, errGitHubPayload
		}
		return fmt.Sprintf("#### [[%s] New discussion #%d: %s](%s)\n%s", p.Repository.FullName, d.Number, d.Title,
			d.HTMLURL, cutText(deref(d.Body), 450)), lightOrange, nil, nil
	case "answered":
		a := p.Answer
		if d == nil || a == nil || a.User == nil || a.User.Login == "" {
			return "", "", nil, errGitHubPayload
		}
		return fmt.Sprintf("#### [[%s] Discussion #%d marked answered: %s](%s)\n%s", p.Repository.FullName, d.Number,
			d.Title, d.HTMLURL, cutText(a.Body, 450)), lightOrange, a.User, nil
	}
	return "", "", nil, nil
}

func onDiscussionComment(p *payload) (string, string, *user, error) {
	if p.Action != "created" {
		return "", "", nil, nil
	}
	d, c := p.Discussion, p.Comment
	if d == nil || c == nil || c.User == nil || c.User.Login == "" {
		return "", "", nil, errGitHubPayload
	}
	return fmt.Sprintf("#### [[%s] New comment on discussion #%d: %s](%s)\n%s", p.Repository.FullName, d.Number,
		d.Title, d.HTMLURL, cutText(c.Body, 450)), lightOrange, c.User, nil
}

func onFork(p *payload) (string, string, *user, error) {
	f := p.Forkee
	if f == nil || f.FullName == "" {
		return "", "", nil, errGitHubPayload
	}
	return fmt.Sprintf("#### [[%s] Fork created: %s](%s)", p.Repository.FullName, f.FullName, f.HTMLURL), grey, nil, nil
}

func onIssues(p *payload) (string, string, *user, error) {
	return itemEvent(p, p.Issue, "Issue")
}

func onPullRequest(p *payload) (string, string, *user, error) {
	pr := p.PullRequest
	if pr != nil && p.Number != nil {
		pr.Number = *p.Number
	}
	return itemEvent(p, pr, "Pull Request")
}

// itemEvent describes an issue or pull request opened (with its
// body), closed or reopened; other actions post nothing.
func itemEvent(p *payload, it *item, kind string) (string, string, *user, error) {
	var verb, colour string
	switch p.Action {
	case "opened":
		verb, colour = "Opened", orange
	case "closed":
		verb, colour = "Closed", grey
	case "reopened":
		verb, colour = "Reopened", green
	default:
		return "", "", nil, nil
	}
	if it == nil {
		return "", "", nil, errGitHubPayload
	}
	desc := fmt.Sprintf("#### [[%s] %s %s #%d: %s](%s)", p.Repository.FullName, kind, verb, it.Number, it.Title, it.HTMLURL)
	if p.Action == "opened" {
		desc += "\n" + cutText(deref(it.Body), 450)
	}
	return desc, colour, nil, nil
}

func onIssueComment(p *payload) (string, string, *user, error) {
	if p.Action != "created" {
		return "", "", nil, nil
	}
	it, c := p.Issue, p.Comment
	if it == nil || c == nil {
		return "", "", nil, errGitHubPayload
	}
	return fmt.Sprintf("#### [[%s] New comment on issue #%d: %s](%s)\n%s", p.Repository.FullName, it.Number,
		it.Title, it.HTMLURL, cutText(c.Body, 450)), lightOrange, nil, nil
}

// textEmbed is the embed: the user's login as the title, linking
// to their profile, their picture as the icon. Fields are cut to what a
// text embed may hold, so a valid delivery always posts.
func textEmbed(by *user, desc, colour string) *chat.SendableEmbed {
	title := cutRunes(by.Login, 100)
	desc = cutBytes(desc, 2000)
	e := &chat.SendableEmbed{Title: &title, Description: &desc, Colour: &colour}
	if u := by.AvatarURL; u != "" && len(u) <= 256 {
		e.IconURL = &u
	}
	if u := by.HTMLURL; u != "" && len(u) <= 256 {
		e.URL = &u
	}
	return e
}

// shortSHA is the first eight characters of a commit id.
func shortSHA(id string) string { return cutRunes(id, 8) }

// cutText shortens s to n characters followed by "..." when it has n or
// more, as the GitHub embeds do.
func cutText(s string, n int) string {
	if utf8.RuneCountInString(s) < n {
		return s
	}
	return cutRunes(s, n) + "..."
}

// cutRunes returns the first n characters of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// cutBytes returns the longest prefix of s of at most n bytes that does
// not split a character.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
