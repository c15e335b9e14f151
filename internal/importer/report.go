package importer

import (
	"fmt"
	"io"
	"strings"
)

// Report says what an import brought over and what it left out, and why.
type Report struct {
	Source      string
	Collections []CollectionReport
}

// CollectionReport is one source collection's part of a Report.
type CollectionReport struct {
	Name     string
	Imported int64 // documents written
	Complete bool  // read to its end
	Skipped  []Skip
}

// Skip counts documents, or parts of documents, left out for one reason.
type Skip struct {
	Reason   string
	Count    int64
	Examples []string // a few ids of this run, when known
}

// Write writes the report as text.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "import from %s:\n", r.Source)
	for _, c := range r.Collections {
		state := ""
		if !c.Complete {
			state = " (unfinished)"
		}
		fmt.Fprintf(&b, "  %-20s %d imported%s\n", c.Name, c.Imported, state)
		for _, s := range c.Skipped {
			fmt.Fprintf(&b, "  %-20s %d left out: %s", "", s.Count, s.Reason)
			if len(s.Examples) > 0 {
				fmt.Fprintf(&b, " (e.g. %s)", strings.Join(s.Examples, ", "))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Imported returns how many documents of collection were written.
func (r *Report) Imported(collection string) int64 {
	for _, c := range r.Collections {
		if c.Name == collection {
			return c.Imported
		}
	}
	return 0
}

// Skipped returns how many documents or parts of collection were left
// out for reasons containing substr.
func (r *Report) Skipped(collection, substr string) int64 {
	var n int64
	for _, c := range r.Collections {
		if c.Name != collection {
			continue
		}
		for _, s := range c.Skipped {
			if strings.Contains(s.Reason, substr) {
				n += s.Count
			}
		}
	}
	return n
}
