package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"ermine/internal/config"
	"ermine/internal/server"
	"ermine/internal/store/sqlite"
)

// backupDB is the database's name inside a backup archive.
const backupDB = "ermine.db"

// backup runs "ermine backup [--files] FILE": a consistent copy of the
// SQLite database, taken while the server runs (VACUUM INTO). With
// --files, FILE is a gzip'd tar holding the database and the uploads
// directory (disk storage); without, FILE is the database itself.
func backup(ctx context.Context, cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("backup", flag.ContinueOnError)
	fl.SetOutput(stderr)
	withFiles := fl.Bool("files", false, "also archive the uploaded files (disk storage); FILE is then a .tar.gz")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return errors.New("backup: want \"backup [--files] FILE\"")
	}
	if cfg.Database.URL != "" {
		return errors.New("backup: the database is PostgreSQL; use pg_dump (see docs/operating.md)")
	}
	dest := fl.Arg(0)
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("backup: %s exists", dest)
	}
	if !*withFiles {
		if err := sqlite.Backup(ctx, cfg.SQLitePath(), dest); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "database copied to %s\n", dest)
		return recordBackup(ctx, cfg, dest, stderr)
	}
	if cfg.Files.Backend == config.FilesS3 {
		return errors.New("backup: uploads are in S3; back the bucket up with the S3 provider's tools and run backup without --files")
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".ermine-backup-")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(tmp)
	db := filepath.Join(tmp, backupDB)
	if err := sqlite.Backup(ctx, cfg.SQLitePath(), db); err != nil {
		return err
	}
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	err = writeArchive(out, db, filepath.Join(cfg.Data, "files"))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dest)
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stdout, "database and files archived to %s\n", dest)
	return recordBackup(ctx, cfg, dest, stderr)
}

// recordBackup notes the backup in the instance's audit log, where the
// operator's console reads when the last one was taken.
func recordBackup(ctx context.Context, cfg config.Config, dest string, stderr io.Writer) error {
	ad, err := server.OpenAdmin(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return fmt.Errorf("backup: record it: %w", err)
	}
	defer ad.Close()
	if abs, err := filepath.Abs(dest); err == nil {
		dest = abs
	}
	return ad.App.RecordBackup(ctx, dest)
}

// writeArchive writes a tar.gz of the database file and the files tree
// (under files/). Upload blobs are written once and never changed, so
// copying them while the server runs is safe; one uploaded during the
// copy may be missing, as if uploaded after it.
func writeArchive(w io.Writer, db, files string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	add := func(name, path string, info fs.FileInfo) error {
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = name
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	}
	info, err := os.Stat(db)
	if err != nil {
		return err
	}
	if err := add(backupDB, db, info); err != nil {
		return err
	}
	if _, err := os.Stat(files); err == nil {
		err := filepath.WalkDir(files, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // removed by the sweep meanwhile
				}
				return err
			}
			if !d.IsDir() && !d.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(files, path)
			if err != nil || rel == "." {
				return err
			}
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			return add(filepath.ToSlash(filepath.Join("files", rel)), path, info)
		})
		if err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// restore runs "ermine restore [--force] FILE": the database (and, from
// an archive, the files) of a backup replace the data directory's. The
// server must be stopped. Without --force an existing database is left
// alone.
func restore(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("restore", flag.ContinueOnError)
	fl.SetOutput(stderr)
	force := fl.Bool("force", false, "replace an existing database")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return errors.New("restore: want \"restore [--force] FILE\" (stop the server first)")
	}
	if cfg.Database.URL != "" {
		return errors.New("restore: the database is PostgreSQL; use pg_restore or psql (see docs/operating.md)")
	}
	// Alone in the directory: a server (or an admin command) running on
	// it would go on with the old database and lose what it writes.
	release, err := server.LockDataDir(cfg.Data, true)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer func() { _ = release() }()
	src := fl.Arg(0)
	dbPath := cfg.SQLitePath()
	if _, err := os.Stat(dbPath); err == nil && !*force {
		return fmt.Errorf("restore: %s exists; stop the server and use --force to replace it", dbPath)
	}
	if err := os.MkdirAll(cfg.Data, 0o750); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, _ := br.Peek(2)
	tmpDB := dbPath + ".restoring"
	os.Remove(tmpDB)
	files := 0
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if files, err = readArchive(br, tmpDB, filepath.Join(cfg.Data, "files")); err != nil {
			os.Remove(tmpDB)
			return fmt.Errorf("restore: %w", err)
		}
	} else if err := copyTo(tmpDB, br); err != nil {
		os.Remove(tmpDB)
		return fmt.Errorf("restore: %w", err)
	}
	if err := checkSQLite(tmpDB); err != nil {
		os.Remove(tmpDB)
		return fmt.Errorf("restore: %s: %w", src, err)
	}
	// The old database's write-ahead log must not be replayed over the
	// restored file.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(dbPath + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if err := os.Rename(tmpDB, dbPath); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s", dbPath)
	if files > 0 {
		fmt.Fprintf(stdout, " and %d files", files)
	}
	fmt.Fprintln(stdout)
	return nil
}

// readArchive unpacks a backup archive: the database to db, files/... to
// filesDir. Names that would leave filesDir are refused.
func readArchive(r io.Reader, db, filesDir string) (int, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return 0, err
	}
	tr := tar.NewReader(gz)
	n, sawDB := 0, false
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		switch {
		case hdr.Name == backupDB:
			if err := copyTo(db, tr); err != nil {
				return n, err
			}
			sawDB = true
		case strings.HasPrefix(hdr.Name, "files/"):
			rel := filepath.FromSlash(strings.TrimPrefix(hdr.Name, "files/"))
			if rel == "" || !filepath.IsLocal(rel) {
				if hdr.Typeflag == tar.TypeDir && rel == "" {
					continue
				}
				return n, fmt.Errorf("archive entry %q leaves the files directory", hdr.Name)
			}
			path := filepath.Join(filesDir, rel)
			switch hdr.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(path, 0o750); err != nil {
					return n, err
				}
			case tar.TypeReg:
				if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
					return n, err
				}
				if err := copyTo(path, tr); err != nil {
					return n, err
				}
				n++
			}
		default:
			return n, fmt.Errorf("unexpected archive entry %q", hdr.Name)
		}
	}
	if !sawDB {
		return n, fmt.Errorf("the archive holds no %s", backupDB)
	}
	return n, nil
}

// copyTo writes r to a new file at path, replacing it.
func copyTo(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkSQLite checks the file starts like a SQLite database.
func checkSQLite(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "SQLite format 3\x00" {
		return errors.New("not a SQLite database or an ermine backup archive")
	}
	return nil
}
