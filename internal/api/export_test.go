package api

import "net/http"

// patterns records the patterns of a route table.
type patterns []string

func (p *patterns) Handle(pattern string, _ http.Handler) { *p = append(*p, pattern) }

// RoutePatterns lists every pattern of the API's route table, in the
// order routes registers them.
func RoutePatterns() []string {
	var p patterns
	(&API{}).routes(&p)
	return p
}
