package api

import (
	"encoding/json"
	"html/template"
	"net/http"
	"sort"
	"strings"

	"ermine/internal/api/contract"
	"ermine/internal/app"
)

// openAPI handles GET /openapi.json: the contract this server implements
// with the additions it serves from later reference versions.
func (a *API) openAPI(w http.ResponseWriter, _ *http.Request, _ *app.Caller) error {
	doc, err := contract.Served()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(doc)
	return err
}

// operation is one route of the contract as the browsable page lists it.
type operation struct {
	Method, Path, Summary, Description, ID string
	Since                                  string // reference version of an addition
	Params                                 []string
	Body                                   string
	Responses                              []string
}

// tagGroup is the operations of one contract tag.
type tagGroup struct {
	Tag string
	Ops []operation
}

// swagger handles GET /swagger: a self-contained page that browses the
// contract (no scripts or assets from elsewhere).
func (a *API) swagger(w http.ResponseWriter, _ *http.Request, _ *app.Caller) error {
	a.swaggerOnce.Do(func() { a.swaggerPage, a.swaggerErr = renderSwagger() })
	if a.swaggerErr != nil {
		return a.swaggerErr
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, err := w.Write(a.swaggerPage)
	return err
}

func refName(v any) string {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return strings.TrimPrefix(ref, "#/components/schemas/")
	}
	if t, ok := m["type"].(string); ok {
		if t == "array" {
			return refName(m["items"]) + "[]"
		}
		return t
	}
	return "object"
}

func renderSwagger() ([]byte, error) {
	var doc struct {
		Info  map[string]any                       `json:"info"`
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	served, err := contract.Served()
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(served, &doc); err != nil {
		return nil, err
	}
	groups := map[string][]operation{}
	for path, methods := range doc.Paths {
		for method, op := range methods {
			o := operation{Method: strings.ToUpper(method), Path: path}
			o.Summary, _ = op["summary"].(string)
			o.Description, _ = op["description"].(string)
			o.ID, _ = op["operationId"].(string)
			o.Since, _ = op["x-reference-version"].(string)
			if params, ok := op["parameters"].([]any); ok {
				for _, p := range params {
					pm, _ := p.(map[string]any)
					name, _ := pm["name"].(string)
					in, _ := pm["in"].(string)
					o.Params = append(o.Params, name+" ("+in+", "+refName(pm["schema"])+")")
				}
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				if c, ok := rb["content"].(map[string]any); ok {
					for _, v := range c {
						o.Body = refName(v.(map[string]any)["schema"])
					}
				}
			}
			if rs, ok := op["responses"].(map[string]any); ok {
				for code, v := range rs {
					desc := code
					if c, ok := v.(map[string]any)["content"].(map[string]any); ok {
						for _, ct := range c {
							desc += " " + refName(ct.(map[string]any)["schema"])
						}
					}
					o.Responses = append(o.Responses, desc)
				}
				sort.Strings(o.Responses)
			}
			tag := "Other"
			if tags, ok := op["tags"].([]any); ok && len(tags) > 0 {
				tag, _ = tags[0].(string)
			}
			groups[tag] = append(groups[tag], o)
		}
	}
	var list []tagGroup
	for tag, ops := range groups {
		sort.Slice(ops, func(i, j int) bool {
			if ops[i].Path != ops[j].Path {
				return ops[i].Path < ops[j].Path
			}
			return ops[i].Method < ops[j].Method
		})
		list = append(list, tagGroup{Tag: tag, Ops: ops})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Tag < list[j].Tag })
	var b strings.Builder
	err = swaggerTemplate.Execute(&b, map[string]any{"Info": doc.Info, "Groups": list})
	return []byte(b.String()), err
}

var swaggerTemplate = template.Must(template.New("swagger").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ermine API</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
h2{border-bottom:1px solid #ccc;margin-top:2em}
details{border:1px solid #ddd;border-radius:4px;margin:.4em 0;padding:.3em .6em}
summary{cursor:pointer}
code.m{display:inline-block;width:5em;font-weight:bold}
.GET{color:#2b6cb0}.POST{color:#2f855a}.PUT{color:#b7791f}.PATCH{color:#6b46c1}.DELETE{color:#c53030}
ul{margin:.2em 0}
</style></head><body>
<h1>Ermine API</h1>
<p>The chat platform interface this server implements, version {{index .Info "version"}},
with the additions it serves from later versions of the reference (each marked with the version it comes from).
The machine-readable document is at <a href="openapi.json">/openapi.json</a>.</p>
{{range .Groups}}<h2>{{.Tag}}</h2>
{{range .Ops}}<details><summary><code class="m {{.Method}}">{{.Method}}</code> <code>{{.Path}}</code> {{.Summary}}{{if .Since}} <em>(added in reference {{.Since}})</em>{{end}}</summary>
{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .Params}}<p>Parameters:</p><ul>{{range .Params}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{if .Body}}<p>Body: <code>{{.Body}}</code></p>{{end}}
<p>Responses:</p><ul>{{range .Responses}}<li><code>{{.}}</code></li>{{end}}</ul>
</details>
{{end}}{{end}}
</body></html>
`))
