package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"syscall"

	"ermine/internal/config"
	"ermine/internal/store/postgres"
	"ermine/internal/store/sqlite"
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

// lockName is the file in the data directory that every process using
// the directory holds a lock on (flock): serving processes and the
// commands that write share it; restore, which swaps the database under
// them, needs it alone.
const lockName = "ermine.lock"

// ErrDataDirInUse is returned by LockDataDir for an exclusive lock when
// another process (a server, an admin command) uses the directory.
var ErrDataDirInUse = errors.New("in use")

// LockDataDir locks the data directory dir, creating it if needed:
// shared for serving and for commands that write through the store,
// exclusive for one that replaces the database. It never waits: a lock
// that cannot be had at once is refused with ErrDataDirInUse. The lock
// lasts until release is called or the process ends (even by kill -9).
func LockDataDir(dir string, exclusive bool) (release func() error, err error) {
	if err := checkDataDir(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	f, err := openLocked(abs, lockName, how)
	if err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if exclusive {
				return nil, fmt.Errorf("data directory %s: %w by a running server or ermine command; stop it first", abs, ErrDataDirInUse)
			}
			return nil, fmt.Errorf("data directory %s: %w by ermine restore; wait for it to finish", abs, ErrDataDirInUse)
		}
		return nil, err
	}
	return f.Close, nil // closing the file releases the lock
}

// Serving reports whether a server holds the data directory dir: one
// that serves (and only that) holds a shared lock on servingName. It
// sees servers on this machine only.
func Serving(dir string) bool {
	f, err := os.Open(filepath.Join(dir, servingName))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = flock(f, syscall.LOCK_UN)
	return false
}

// servingName is the file a serving process holds a shared lock on, so
// a command can tell whether a server runs (Serving).
const servingName = "ermine.serving"

// holdServing takes the shared lock on servingName for a serving
// process.
func holdServing(dir string) (func() error, error) {
	f, err := openLocked(dir, servingName, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	return f.Close, nil
}

// openLocked opens (creating it) the file name in the data directory dir
// and takes the lock how on it without waiting. A lock held elsewhere
// is an error that errors.Is syscall.EWOULDBLOCK; the lock lasts until
// the file is closed or the process ends.
func openLocked(dir, name string, how int) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, dataDirError(dir, err)
	}
	if err := flock(f, how|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("data directory %s: lock: %w", dir, err)
	}
	return f, nil
}

// flock retries an interrupted flock.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// ErrNoInstance is returned by CheckInstance when the configuration
// points at no Ermine instance.
var ErrNoInstance = errors.New("no Ermine instance")

// CheckInstance refuses, for the commands other than serve, a database
// that does not exist or holds no Ermine instance: a mistyped --data or
// --config would otherwise create a new, empty one, and the command
// would report success about nobody (invite codes no server accepts, an
// empty user list).
func CheckInstance(ctx context.Context, cfg config.Config) error {
	hint := "check --data/--config (ERMINE_DATA, ERMINE_CONFIG) name the instance's; `ermine serve` creates a new one"
	if cfg.Database.URL != "" {
		ok, err := postgres.HasSchema(ctx, cfg.Database.URL)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w in the PostgreSQL database of [database] url: it has no Ermine tables; %s", ErrNoInstance, hint)
		}
		return nil
	}
	path, err := filepath.Abs(cfg.SQLitePath())
	if err != nil {
		path = cfg.SQLitePath()
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: there is no database %s; %s", ErrNoInstance, path, hint)
	case err != nil:
		return fmt.Errorf("database %s: %w", path, err)
	case fi.Size() == 0:
		return fmt.Errorf("%w: the database %s is empty; %s", ErrNoInstance, path, hint)
	}
	ok, err := sqlite.HasSchema(ctx, path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the database %s has no Ermine tables; %s", ErrNoInstance, path, hint)
	}
	return nil
}

// checkDatabaseWritable refuses a SQLite database (or its write-ahead
// log) this process cannot write. SQLite would open it read-only without
// a word: the server would start, /healthz would say ok, and every write
// would fail; a file it cannot open at all only gets "unable to open
// database file (14)".
func checkDatabaseWritable(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			f.Close()
			continue
		}
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return fmt.Errorf("database %s: permission denied: %s cannot open it for writing (%s); "+
				"give that user read and write access to it (chown or chmod), or run Ermine as its owner",
				p, whoami(), describeFile(p))
		}
		return fmt.Errorf("database %s: %w", p, err)
	}
	return nil
}

// describeFile gives a file's mode and owner, for an error message.
func describeFile(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return err.Error()
	}
	s := "mode " + fi.Mode().Perm().String()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		owner := fmt.Sprintf("uid %d", st.Uid)
		if u, err := user.LookupId(fmt.Sprint(st.Uid)); err == nil {
			owner = fmt.Sprintf("user %s (uid %d)", u.Username, st.Uid)
		}
		s += ", owned by " + owner
	}
	return s
}

// nodeName is the file in the data directory where the serving process
// writes its events node id (gateway.Gateway.Node) and holds an
// exclusive lock on it while it runs: the next server on the directory
// reads the id of the one before, which, since the lock was free, is no
// longer running (a lock lasts until its process ends, even by kill -9).
const nodeName = "ermine.node"

// nodeFile is a claimed nodeName.
type nodeFile struct{ f *os.File }

// claimNode locks nodeName in dir and returns the node id written there
// by the process before. When another running server on the same
// directory holds it, there is nothing to claim: prev is empty and the
// file is nil (its methods then do nothing).
func claimNode(dir string) (nf *nodeFile, prev string, err error) {
	f, err := openLocked(dir, nodeName, syscall.LOCK_EX)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	return &nodeFile{f: f}, string(bytes.TrimSpace(b[:n])), nil
}

// write replaces the id in the file.
func (nf *nodeFile) write(id string) error {
	if nf == nil {
		return nil
	}
	if err := nf.f.Truncate(0); err != nil {
		return err
	}
	_, err := nf.f.WriteAt([]byte(id+"\n"), 0)
	return err
}

// close releases the lock.
func (nf *nodeFile) close() error {
	if nf == nil {
		return nil
	}
	return nf.f.Close()
}
