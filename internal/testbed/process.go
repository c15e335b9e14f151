package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Build builds the main package pkg (an import path such as
// "ermine/cmd/ermine") into the file out.
func Build(ctx context.Context, pkg, out string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("go is not on PATH: %w", err)
	}
	if b, err := exec.CommandContext(ctx, goTool, "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// Command is a server program to run as a separate process.
type Command struct {
	Path string   // the program
	Args []string // its arguments
	// Env is added to this process's environment, from which Ermine's own
	// settings (ERMINE_*) are removed first: a developer's
	// ERMINE_DATABASE_URL must not reach the node under test.
	Env []string
	// Ready is the path on Addr that answers 200 once the program
	// serves; "/healthz" when empty.
	Ready string
}

// Process is a server running as a separate process.
type Process struct {
	Addr   string // host:port it serves on
	URL    string // "http://" + Addr
	cmd    *exec.Cmd
	log    *Log
	exited chan struct{}
	err    error // of Wait, once exited is closed
	killed atomic.Bool
}

// startTimeout bounds a start: building nothing, a node answers within
// seconds; a shared machine may take longer.
const startTimeout = 60 * time.Second

// StartProcess runs c, which is to serve on addr, and waits until it
// answers on c.Ready (at most a minute). Its standard output and error
// are kept (Log).
func StartProcess(ctx context.Context, addr string, c Command) (*Process, error) {
	p := &Process{Addr: addr, URL: "http://" + addr, log: &Log{}, exited: make(chan struct{})}
	p.cmd = exec.Command(c.Path, c.Args...)
	p.cmd.Env = append(Environ(), c.Env...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	ready := c.Ready
	if ready == "" {
		ready = "/healthz"
	}
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s exited while starting: %v\n%s", c.Path, p.err, p.log.Tail())
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), p.Kill())
		default:
		}
		res, err := client.Get(p.URL + ready)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
			err = fmt.Errorf("%s answered %d", ready, res.StatusCode)
		}
		if time.Now().After(deadline) {
			return nil, errors.Join(fmt.Errorf("%s not serving on %s after %s: %w\n%s", c.Path, addr, startTimeout, err, p.log.Tail()), p.Kill())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartErmine runs the ermine binary bin on a free loopback port with
// its data in the directory data and env added to its environment, and
// waits until /healthz answers.
func StartErmine(ctx context.Context, bin, data string, env ...string) (*Process, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	return StartProcess(ctx, addr, Command{Path: bin, Args: []string{"--listen", addr, "--data", data}, Env: env})
}

// Stop asks the process to shut down (SIGINT) and waits for it, killing
// it after 30 s. A process that ends on the signal without handling it,
// or that Kill ended, stopped well; any other failed exit is an error.
func (p *Process) Stop() error {
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Signal(os.Interrupt)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.Kill()
		return fmt.Errorf("%s did not stop within 30 s of SIGINT; killed", p.cmd.Path)
	}
	var exit *exec.ExitError
	if p.err == nil || p.killed.Load() {
		return nil
	}
	if errors.As(p.err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return nil
		}
	}
	return fmt.Errorf("%s: %w\n%s", p.cmd.Path, p.err, p.log.Tail())
}

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *Process) Kill() error {
	p.killed.Store(true)
	err := p.cmd.Process.Kill()
	<-p.exited
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// Exited is closed once the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Log is what the process has written to its standard output and error.
func (p *Process) Log() *Log { return p.log }

// RSS is the process's resident set size (VmRSS) in bytes.
func (p *Process) RSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0, fmt.Errorf("read process status: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmRSS %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmRSS in process status")
}

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture).
const clockTick = 10 * time.Millisecond

// CPU is the CPU time the process has used in user and in system
// (kernel) mode.
func (p *Process) CPU() (user, system time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid()))
	if err != nil {
		return 0, 0, fmt.Errorf("read process stat: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed process stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, errors.New("short process stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("parse process stat: %w", err)
	}
	return time.Duration(utime) * clockTick, time.Duration(stime) * clockTick, nil
}

// FreeAddr returns a loopback address whose port was free a moment ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Environ is this process's environment without Ermine's own settings
// (ERMINE_*) nor the variables starting with one of drop.
func Environ(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ERMINE_") && !slices.ContainsFunc(drop, func(d string) bool { return strings.HasPrefix(kv, d) }) {
			env = append(env, kv)
		}
	}
	return env
}

// Log is an output buffer safe for a process's two streams and a reader.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Tail is the last 4,000 bytes written.
func (l *Log) Tail() string {
	s := l.String()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}
