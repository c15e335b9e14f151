// Package importer moves another chat platform's data into an Ermine
// instance: one pipeline, fed by one reader per source (Revolt/Stoat
// dumps in importer/revolt; Discord exports and the bulk format in their
// own packages).
//
// A reader turns each source document into chat objects and hands them
// to a Writer, one Writer per source collection. The pipeline batches the
// writes into transactions through store, copies file bytes into blob
// storage under their SHA-256 (deduplicated), draws progress, and keeps a
// marker in the store while the import is unfinished. The marker holds,
// per collection, how many source documents are committed, written in the
// same transaction as each batch: a run that stops anywhere resumes from
// the marker without duplicates, and the server refuses to start while
// the marker is there. Finish removes it and returns the report of what
// was imported and what was skipped, and why.
//
// A reader uses it so:
//
//	p, err := importer.Begin(ctx, st, blobs, importer.Options{Source: "revolt", Command: cmdline, Progress: os.Stderr})
//	if err != nil {
//		return err // ErrNotEmpty, or an unfinished import of another source
//	}
//	if !p.Complete("users") {
//		w := p.Collection("users", total)
//		skip := p.Done("users") // documents committed by an earlier run
//		for i, doc := range docs {
//			if int64(i) < skip {
//				continue
//			}
//			u, err := convert(doc)
//			if err != nil {
//				w.Skip(doc.ID, "unknown shape")
//			} else {
//				w.User(u)
//			}
//			if err := w.Next(ctx); err != nil {
//				return err
//			}
//		}
//		if err := w.Close(ctx); err != nil {
//			return err
//		}
//	}
//	report, err := p.Finish(ctx)
package importer
