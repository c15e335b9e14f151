package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
)

// checkDataDir makes sure the data directory exists and this process can
// write in it, before anything else tries: a directory owned by another
// user is the usual first failure of a hand-made service, and it should
// say so plainly rather than as a database error.
func checkDataDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	err = os.MkdirAll(abs, 0o750)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(abs, ".ermine-write-check-*"); err == nil {
			name := f.Name()
			f.Close()
			return os.Remove(name)
		}
	}
	return dataDirError(abs, err)
}

// dataDirError words a failure to use the data directory at abs.
func dataDirError(abs string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("data directory %s: permission denied: %s cannot write there; "+
			"give that user write access to it, or choose another directory with --data or ERMINE_DATA", abs, whoami())
	}
	return fmt.Errorf("data directory %s: %w", abs, err)
}

// whoami names the user this process runs as.
func whoami() string {
	if u, err := user.Current(); err == nil {
		return fmt.Sprintf("user %s (uid %s)", u.Username, u.Uid)
	}
	return fmt.Sprintf("uid %d", os.Getuid())
}
