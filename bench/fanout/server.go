package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serverProcess is the ermine process under load.
type serverProcess struct {
	addr   string
	debug  string // Ermine's metrics listener, serving the profiler
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	err    error
}

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture).
const clockTick = 10 * time.Millisecond

// startServer runs bin serving the data directory dir on a free loopback
// port, with rate limits off and a keep-alive longer than any run (the
// load's connections send nothing after authenticating), and waits until
// it answers.
func startServer(ctx context.Context, kind target, bin, dir string, env []string, pin bool) (*serverProcess, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	p := &serverProcess{addr: addr, log: filepath.Join(dir, "server.log"), exited: make(chan struct{})}
	logFile, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	p.cmd, err = command(kind, bin, addr, dir)
	if err != nil {
		return nil, err
	}
	if pin {
		// The server on CPU 0 alone: the load generator keeps the rest.
		p.cmd.Args = append([]string{"taskset", "-c", "0"}, p.cmd.Args...)
		if p.cmd.Path, err = exec.LookPath("taskset"); err != nil {
			return nil, err
		}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ERMINE_") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, "ERMINE_LIMITS_RATE_LIMITS=false", "ERMINE_GATEWAY_KEEPALIVE=30m",
		"ERMINE_GATEWAY_UNAUTHENTICATED_PER_IP=1000000", // every client dials from loopback
		"ERMINE_LOG_LEVEL=warn")
	p.cmd.Env = append(p.cmd.Env, env...)
	if kind == targetErmine {
		if p.debug, err = freePort(); err != nil {
			return nil, err
		}
		p.cmd.Env = append(p.cmd.Env, "ERMINE_METRICS_LISTEN="+p.debug, "ERMINE_METRICS_PROFILING=true")
	}
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("server exited while starting: %v\n%s", p.err, p.tail())
		case <-ctx.Done():
			_ = p.stop()
			return nil, ctx.Err()
		default:
		}
		res, err := http.Get("http://" + addr + readyPath(kind))
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			_ = p.stop()
			return nil, fmt.Errorf("server not answering after 30s: %v\n%s", err, p.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop asks the server to shut down (SIGINT) and kills it after 30s.
func (p *serverProcess) stop() error {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return errors.New("server did not stop within 30s; killed")
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return nil
		}
		return fmt.Errorf("server: %w\n%s", p.err, p.tail())
	}
	return nil
}

// tail returns the end of the server's log.
func (p *serverProcess) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// rss returns the server's resident set size (VmRSS) in bytes.
func (p *serverProcess) rss() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("read server status: %w", err)
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
	return 0, errors.New("no VmRSS in server status")
}

// cpu returns the CPU time the server has used in user and in system
// (kernel) mode.
func (p *serverProcess) cpu() (user, system time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read server stat: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed server stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, errors.New("short server stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("parse server stat: %w", err)
	}
	return time.Duration(utime) * clockTick, time.Duration(stime) * clockTick, nil
}

// cluster is the server processes of a run: one, or several nodes of
// one instance.
type cluster []*serverProcess

// addrs lists the nodes' addresses.
func (c cluster) addrs() []string {
	out := make([]string, len(c))
	for i, p := range c {
		out[i] = p.addr
	}
	return out
}

// rss is the nodes' resident memory together.
func (c cluster) rss() (int64, error) {
	var sum int64
	for _, p := range c {
		n, err := p.rss()
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// cpu is the CPU time the nodes used together.
func (c cluster) cpu() (user, system time.Duration, err error) {
	for _, p := range c {
		u, s, err := p.cpu()
		if err != nil {
			return 0, 0, err
		}
		user, system = user+u, system+s
	}
	return user, system, nil
}

// freePort returns a loopback address whose port was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// cpuProfile writes the server's CPU profile over the next d to path.
func (p *serverProcess) cpuProfile(ctx context.Context, d time.Duration, path string) error {
	return p.saveProfile(ctx, fmt.Sprintf("profile?seconds=%d", int(d.Seconds())), path)
}

// heapProfile writes the server's heap profile, after a collection, to
// path.
func (p *serverProcess) heapProfile(ctx context.Context, path string) error {
	return p.saveProfile(ctx, "heap?gc=1", path)
}

// saveProfile writes the profile the server's profiler serves at
// /debug/pprof/ + name to path.
func (p *serverProcess) saveProfile(ctx context.Context, name, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.debug+"/debug/pprof/"+name, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", res.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
