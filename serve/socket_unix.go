//go:build unix

package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// ListenUnix serves clients connecting to a unix socket at path until ctx
// is done. The socket is created with mode 0600 (only this user can
// connect) and every connection's peer is checked to be this user too.
// An existing socket at path is replaced only when nothing answers on it;
// anything else there is an error. When ListenUnix returns, every command
// started through it has been killed and the socket is removed.
func (s *Server) ListenUnix(ctx context.Context, path string) error {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != os.ModeSocket {
			return fmt.Errorf("socket %s: something else is there; choose another path", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return fmt.Errorf("socket %s: another server answers there", path)
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("socket %s: %w", path, err)
		}
	}
	// The socket is born 0600: no moment when others could connect. It is
	// made under a temporary name and renamed into place once it listens:
	// a client that sees the path can connect (between bind and listen a
	// connection would be refused).
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	os.Remove(tmp)
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("socket %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		os.Remove(tmp)
		return fmt.Errorf("socket %s: %w", path, err)
	}
	defer os.Remove(path)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	uid := os.Getuid()
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("socket %s: %w", path, err)
		}
		if peer, err := peerUID(c); err != nil || peer != uid {
			s.logf("refused a connection on %s from uid %d (%v): only uid %d may connect", path, peer, err, uid)
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			cctx, ccancel := context.WithCancel(ctx)
			defer ccancel()
			go func() {
				<-cctx.Done()
				c.CloseRead() // unblock the reader when the server stops
			}()
			if err := s.Serve(cctx, c, c); err != nil {
				s.logf("connection: %v", err)
			}
		}()
	}
}
