package sandbox

import (
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// joinPolicy is a policy whose network is the proxy stand-in listen opens
// in the sandbox, with a bridge that says when it runs.
func joinPolicy(t *testing.T, listen func(open ListenFunc) error) *Policy {
	p := bwPolicy(t, t.TempDir())
	p.Network = Network{
		Enabled:  true,
		ProxyDir: t.TempDir(),
		Bridge:   []string{"/bin/sh", "-c", `echo bridge ran; while [ "$1" != "--" ]; do shift; done; shift; exec "$@"`, "bridge"},
		Listen:   listen,
	}
	return p
}

// serveOnce answers every connection on ln with msg.
func serveOnce(ln net.Listener, msg string) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(msg))
			c.Close()
		}
	}()
}

// TestJoinNetnsListeners: the proxy's listeners are opened from outside in
// the network namespace bwrap made, on the sandbox's own loopback, before
// the command starts, and no bridge runs.
func TestJoinNetnsListeners(t *testing.T) {
	bwBackend(t)
	joinNetnsAlways = true
	t.Cleanup(func() { joinNetnsAlways = false })
	var lns []net.Listener
	t.Cleanup(func() {
		for _, ln := range lns {
			ln.Close()
		}
	})
	p := joinPolicy(t, func(open ListenFunc) error {
		for _, a := range []struct {
			network, host string
			port          int
		}{{"tcp4", "127.0.0.1", NamespaceHTTPPort}, {"tcp4", "127.0.0.1", NamespaceSOCKSPort}, {"tcp6", "::1", 8080}} {
			ln, err := open(a.network, a.host, a.port)
			if err != nil {
				if a.network == "tcp6" {
					continue // no IPv6 loopback here
				}
				return err
			}
			lns = append(lns, ln)
			serveOnce(ln, "inside "+a.host+"\n")
		}
		return nil
	})
	r := bwRun(t, p, "/bin/bash", "-c", `for port in 3128 1080; do exec 3<>/dev/tcp/127.0.0.1/$port && cat <&3; done`)
	if r.ExitCode != 0 || r.stdout != "inside 127.0.0.1\ninside 127.0.0.1\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.ExitCode, r.stdout, r.stderr)
	}
	// A port the proxy does not hold is not open: the loopback is the
	// sandbox's own, not the host's.
	r = bwRun(t, p, "/bin/bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/9 && echo reached`)
	if r.ExitCode == 0 || strings.Contains(r.stdout, "reached") {
		t.Fatalf("port 9 reached: %+v", r)
	}
}

// TestJoinNetnsFallback: when the listeners cannot be opened from outside,
// the run starts over with the bridge, and the command runs once.
func TestJoinNetnsFallback(t *testing.T) {
	bwBackend(t)
	joinNetnsAlways = true
	t.Cleanup(func() { joinNetnsAlways = false })
	var calls atomic.Int32
	p := joinPolicy(t, func(open ListenFunc) error {
		calls.Add(1)
		return errors.New("refused for the test")
	})
	r := bwSh(t, p, "echo command ran")
	if r.ExitCode != 0 || r.stdout != "bridge ran\ncommand ran\n" || calls.Load() != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q, Listen called %d times", r.ExitCode, r.stdout, r.stderr, calls.Load())
	}
}
