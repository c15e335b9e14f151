//go:build unix

package server

import (
	"net"
	"syscall"
	"testing"
)

// TestListenNoKeepAlive checks that the connections the server's
// listener accepts have no TCP keep-alive probes (Go's default listener
// turns them on).
func TestListenNoKeepAlive(t *testing.T) {
	l, err := listen(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var on int
	var serr error
	if err := raw.Control(func(fd uintptr) {
		on, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
	}); err != nil {
		t.Fatal(err)
	}
	if serr != nil {
		t.Fatal(serr)
	}
	if on != 0 {
		t.Errorf("SO_KEEPALIVE is %d on an accepted connection, want 0", on)
	}
}
