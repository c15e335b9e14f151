package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"

	"ermine/internal/testbed"
)

// serverProcess is a server process under load.
type serverProcess struct {
	*testbed.Process
	debug string // Ermine's metrics listener, serving the profiler
}

// startServer runs bin serving the data directory dir on addr (a free
// loopback port when empty), with rate limits off and a keep-alive longer than any run (the
// load's connections send nothing after authenticating), and waits until
// it answers.
func startServer(ctx context.Context, kind target, bin, addr, dir string, env []string, pin bool) (*serverProcess, error) {
	var err error
	if addr == "" {
		if addr, err = testbed.FreeAddr(); err != nil {
			return nil, err
		}
	}
	c, err := command(kind, bin, addr, dir)
	if err != nil {
		return nil, err
	}
	if pin {
		// The server on CPU 0 alone: the load generator keeps the rest.
		c.Args = append([]string{"-c", "0", c.Path}, c.Args...)
		if c.Path, err = exec.LookPath("taskset"); err != nil {
			return nil, err
		}
	}
	c.Env = append([]string{"ERMINE_LIMITS_RATE_LIMITS=false", "ERMINE_GATEWAY_KEEPALIVE=30m",
		"ERMINE_GATEWAY_UNAUTHENTICATED_PER_IP=1000000", // every client dials from loopback
		"ERMINE_LOG_LEVEL=warn"}, env...)
	p := &serverProcess{}
	if kind == targetErmine {
		if p.debug, err = testbed.FreeAddr(); err != nil {
			return nil, err
		}
		c.Env = append(c.Env, "ERMINE_METRICS_LISTEN="+p.debug, "ERMINE_METRICS_PROFILING=true")
	}
	if p.Process, err = testbed.StartProcess(ctx, addr, c); err != nil {
		return nil, err
	}
	return p, nil
}

// cluster is the server processes of a run: one, or several nodes of
// one instance.
type cluster []*serverProcess

// addrs lists the nodes' addresses.
func (c cluster) addrs() []string {
	out := make([]string, len(c))
	for i, p := range c {
		out[i] = p.Addr
	}
	return out
}

// rss is the nodes' resident memory together.
func (c cluster) rss() (int64, error) {
	var sum int64
	for _, p := range c {
		n, err := p.RSS()
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
		u, s, err := p.CPU()
		if err != nil {
			return 0, 0, err
		}
		user, system = user+u, system+s
	}
	return user, system, nil
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
