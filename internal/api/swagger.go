package api

import (
	"encoding/json"
	"html/template"
	"net/http"
	"sort"
	"strconv"
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
	BodyForms                              []bodyForm // the body's fields, per accepted form
	Responses                              []string
}

// bodyForm is one shape a request body may take (most have one; some
// accept any of several, like a login by password or by MFA ticket).
type bodyForm struct {
	Name   string // the variant's schema name, "" for the only form
	Fields []field
}

// field is one property of a request body.
type field struct {
	Name, Type, Description string
	Required                bool
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

// resolve follows a schema's $ref into the components.
func resolve(schemas map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	for range 8 { // a chain of references, bounded
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		m, _ = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	return m
}

// bodyForms lists the fields of a request body schema: its properties
// (those of allOf parts merged), or one form per variant of anyOf/oneOf.
func bodyForms(schemas map[string]any, schema any) []bodyForm {
	m := resolve(schemas, schema)
	for _, k := range []string{"anyOf", "oneOf"} {
		if variants, ok := m[k].([]any); ok {
			var forms []bodyForm
			for _, v := range variants {
				if fields := bodyFields(schemas, v); len(fields) > 0 {
					forms = append(forms, bodyForm{Name: refName(v), Fields: fields})
				}
			}
			return forms
		}
	}
	if fields := bodyFields(schemas, m); len(fields) > 0 {
		return []bodyForm{{Fields: fields}}
	}
	return nil
}

// bodyFields lists an object schema's properties, required ones first.
func bodyFields(schemas map[string]any, schema any) []field {
	m := resolve(schemas, schema)
	var out []field
	if parts, ok := m["allOf"].([]any); ok {
		for _, p := range parts {
			out = append(out, bodyFields(schemas, p)...)
		}
	}
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		pm, _ := p.(map[string]any)
		f := field{Name: name, Required: required[name], Type: fieldType(schemas, pm)}
		f.Description, _ = pm["description"].(string)
		if f.Description == "" {
			f.Description, _ = resolve(schemas, pm)["description"].(string)
		}
		f.Description, _, _ = strings.Cut(f.Description, "\n\n")
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// fieldType words a property's type: its schema name, its type with
// format and limits, its values when it is an enumeration.
func fieldType(schemas map[string]any, p map[string]any) string {
	if _, ok := p["$ref"]; ok {
		name := refName(p)
		if enum, ok := resolve(schemas, p)["enum"].([]any); ok {
			return name + " (" + enumList(enum) + ")"
		}
		return name
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if parts, ok := p[k].([]any); ok {
			var names []string
			for _, part := range parts {
				if pm, _ := part.(map[string]any); pm["type"] != "null" {
					names = append(names, fieldType(schemas, pm))
				}
			}
			return strings.Join(names, " | ")
		}
	}
	t := refName(p)
	if f, ok := p["format"].(string); ok {
		t += " (" + f + ")"
	}
	if enum, ok := p["enum"].([]any); ok {
		t += " (" + enumList(enum) + ")"
	}
	for _, lim := range []struct{ key, word string }{{"minLength", "length ≥ "}, {"maxLength", "length ≤ "}, {"minimum", "≥ "}, {"maximum", "≤ "}, {"maxItems", "items ≤ "}} {
		if v, ok := p[lim.key].(float64); ok {
			t += ", " + lim.word + strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	if types, ok := p["type"].([]any); ok { // ["string", "null"]
		var names []string
		for _, x := range types {
			if n, _ := x.(string); n != "null" {
				names = append(names, n)
			}
		}
		t = strings.Join(names, " | ") + strings.TrimPrefix(t, "object")
	}
	return t
}

func enumList(enum []any) string {
	var vals []string
	for _, e := range enum {
		if s, ok := e.(string); ok {
			vals = append(vals, strconv.Quote(s))
		}
	}
	return strings.Join(vals, ", ")
}

func renderSwagger() ([]byte, error) {
	var doc struct {
		Info       map[string]any                       `json:"info"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
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
						schema := v.(map[string]any)["schema"]
						o.Body = refName(schema)
						o.BodyForms = bodyForms(doc.Components.Schemas, schema)
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
table{border-collapse:collapse;margin:.2em 0 .6em}td,th{border:1px solid #ddd;padding:.15em .5em;text-align:left;vertical-align:top}
</style></head><body>
<h1>Ermine API</h1>
<p>The chat platform interface this server implements, version {{index .Info "version"}},
with the additions it serves from later versions of the reference (each marked with the version it comes from).
The machine-readable document is at <a href="openapi.json">/openapi.json</a>.</p>
{{range .Groups}}<h2>{{.Tag}}</h2>
{{range .Ops}}<details><summary><code class="m {{.Method}}">{{.Method}}</code> <code>{{.Path}}</code> {{.Summary}}{{if .Since}} <em>(added in reference {{.Since}})</em>{{end}}</summary>
{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .Params}}<p>Parameters:</p><ul>{{range .Params}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{if .Body}}<p>Body: <code>{{.Body}}</code>{{if gt (len .BodyForms) 1}}, one of:{{end}}</p>
{{range .BodyForms}}{{if .Name}}<p><code>{{.Name}}</code></p>{{end}}<table><tr><th>field</th><th>type</th><th></th><th>description</th></tr>
{{range .Fields}}<tr><td><code>{{.Name}}</code></td><td><code>{{.Type}}</code></td><td>{{if .Required}}required{{else}}optional{{end}}</td><td>{{.Description}}</td></tr>
{{end}}</table>{{end}}{{end}}
<p>Responses:</p><ul>{{range .Responses}}<li><code>{{.}}</code></li>{{end}}</ul>
</details>
{{end}}{{end}}
</body></html>
`))
