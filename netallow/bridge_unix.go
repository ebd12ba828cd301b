//go:build unix

package netallow

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// RunBridge runs inside the sandbox's network namespace, where loopback is
// up and nothing else exists. It listens on ephemeral ports on 127.0.0.1,
// forwards each connection to the proxy's unix socket, starts the command
// with the proxy variables pointing at those ports, passes SIGINT, SIGTERM,
// SIGHUP and SIGQUIT on to the command's process group, and returns the
// command's exit status: 128+N when signal N killed it, 127 when it cannot
// be found, 126 when it cannot be executed, 125 for the bridge's own
// errors. args is everything after "__bridge": BridgeArgs' output, "--",
// then the command.
func RunBridge(args []string) int {
	cfg, err := parseBridgeArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: %v\n", err)
		return 125
	}
	if cfg.tty {
		// Make standard input, a terminal safeexec made for this run, our
		// controlling terminal: the sandbox started us in a session of
		// its own without one, which leaves editors, pagers and password
		// prompts with no /dev/tty. The command then gets its foreground.
		if _, err := unix.Setsid(); err != nil {
			fmt.Fprintf(os.Stderr, "safeexec: terminal: setsid: %v\n", err)
			return 125
		}
		if err := unix.IoctlSetInt(0, unix.TIOCSCTTY, 0); err != nil {
			fmt.Fprintf(os.Stderr, "safeexec: terminal: %v\n", err)
			return 125
		}
	}
	// Notify before the child exists, so a signal sent at once is not
	// lost or fatal to the bridge. Each signal costs a round trip to the
	// runtime's signal thread: begun now, that overlaps the listeners'
	// set-up and the look along $PATH, and is complete before the fork.
	// A signal the bridge was started with ignored (nohup's SIGHUP) stays
	// ignored, and so the command inherits it ignored too.
	sigs := make(chan os.Signal, 8)
	caught := make(chan struct{})
	go func() {
		defer close(caught)
		for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
			if !signal.Ignored(s) {
				signal.Notify(sigs, s)
			}
		}
	}()
	env := os.Environ()
	var httpLn, socksLn net.Listener
	if cfg.httpSock != "" {
		if httpLn, err = listenLoopback(); err != nil {
			fmt.Fprintf(os.Stderr, "safeexec: network bridge: %v\n", err)
			return 125
		}
		socksPort := 0
		if cfg.socksSock != "" {
			if socksLn, err = listenLoopback(); err != nil {
				fmt.Fprintf(os.Stderr, "safeexec: network bridge: %v\n", err)
				return 125
			}
			socksPort = socksLn.Addr().(*net.TCPAddr).Port
		}
		env = WithProxyEnv(env, httpLn.Addr().(*net.TCPAddr).Port, socksPort)
	}

	path, code, err := lookPath(cfg.argv[0], env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: %v\n", err)
		return code
	}
	attr := &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(attr)
	ownPgrp := syscall.Getpgrp()
	foreground := false
	if fg, err := unix.IoctlGetInt(0, unix.TIOCGPGRP); err == nil && fg == ownPgrp {
		// Our terminal, and we are in its foreground: the command's
		// group takes the foreground so it can read and get ^C, and
		// gives it back when it ends.
		attr.Foreground = true
		attr.Ctty = 0
		foreground = true
	}
	<-caught
	// syscall.ForkExec rather than os.StartProcess: the latter first
	// probes pidfd support by starting a throwaway process, a cost paid
	// on every run.
	pid, err := syscall.ForkExec(path, cfg.argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   attr,
	})
	if err != nil {
		code := 126
		if errors.Is(err, fs.ErrNotExist) {
			code = 127
		}
		fmt.Fprintf(os.Stderr, "safeexec: %s: %v\n", cfg.argv[0], err)
		return code
	}
	if foreground {
		// Only now, so the command does not inherit it ignored: taking
		// the terminal back from the background needs SIGTTOU ignored.
		signal.Ignore(syscall.SIGTTOU)
		defer unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, ownPgrp)
	}
	if httpLn != nil {
		go bridgeAccept(httpLn, cfg.httpSock)
		for _, f := range cfg.forwards {
			// A port the command wants for itself is its own business:
			// one that cannot be taken is simply not forwarded.
			if ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Port))); err == nil {
				go bridgeForward(ln, cfg.httpSock, f)
			}
			if ln, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(f.Port))); err == nil {
				go bridgeForward(ln, cfg.httpSock, f)
			}
		}
	}
	if socksLn != nil {
		go bridgeAccept(socksLn, cfg.socksSock)
	}
	go func() {
		for s := range sigs {
			// The whole group, as a terminal would; the command's
			// own children that left the group are its business.
			if syscall.Kill(-pid, s.(syscall.Signal)) != nil {
				syscall.Kill(pid, s.(syscall.Signal))
			}
		}
	}()
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			fmt.Fprintf(os.Stderr, "safeexec: network bridge: wait: %v\n", err)
			return 125
		}
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// listenLoopback listens on an ephemeral port of 127.0.0.1. Plain TCP over
// IPv4 only: it spares the IPv6 and multipath probes a generic listen
// makes on first use.
func listenLoopback() (net.Listener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	lc.SetMultipathTCP(false)
	return lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lookPath finds name as a shell would, in env's PATH: a name with a slash
// is used as is; the first executable regular file wins; a match that is
// not executable means 126, none 127.
func lookPath(name string, env []string) (string, int, error) {
	if name == "" {
		return "", 127, errors.New("empty command name")
	}
	check := func(p string) (bool, error) {
		fi, err := os.Stat(p)
		if err != nil {
			return false, err
		}
		if fi.IsDir() {
			return false, syscall.EISDIR
		}
		if err := unix.Access(p, unix.X_OK); err != nil {
			return false, err
		}
		return true, nil
	}
	if strings.Contains(name, "/") {
		ok, err := check(name)
		if ok {
			return name, 0, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", 127, fmt.Errorf("%s: no such file or directory", name)
		}
		return "", 126, fmt.Errorf("%s: %v", name, unwrapPathError(err))
	}
	pathVar, set := "", false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar, set = v, true
		}
	}
	if !set {
		pathVar = "/usr/local/bin:/usr/bin:/bin"
	}
	var denied error
	for dir := range strings.SplitSeq(pathVar, ":") {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		ok, err := check(p)
		if ok {
			if !strings.Contains(p, "/") {
				p = "./" + p
			}
			return p, 0, nil
		}
		if denied == nil && err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			denied = fmt.Errorf("%s: %v", name, unwrapPathError(err))
		}
	}
	if denied != nil {
		return "", 126, denied
	}
	return "", 127, fmt.Errorf("%s: command not found", name)
}

// bridgeAccept forwards every connection accepted on ln to the unix socket
// at sock, until ln fails.
func bridgeAccept(ln net.Listener, sock string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		go bridgeConn(c, sock)
	}
}

func bridgeConn(c net.Conn, sock string) {
	defer c.Close()
	u, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer u.Close()
	bridgeConnOn(c, u)
}

// bridgeConnOn copies both ways between c and u until both are done.
func bridgeConnOn(c, u net.Conn) {
	done := make(chan struct{})
	go func() {
		if _, err := io.Copy(u, c); err != nil {
			u.Close()
			c.Close()
		} else {
			closeWrite(u)
		}
		close(done)
	}()
	if _, err := io.Copy(c, u); err != nil {
		u.Close()
		c.Close()
	} else {
		closeWrite(c)
	}
	<-done
}

// bridgeForward serves a forwarded loopback port: each connection becomes
// a CONNECT to f through the proxy's HTTP socket, decided like any other.
func bridgeForward(ln net.Listener, sock string, f Forward) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		go func() {
			defer c.Close()
			u, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			defer u.Close()
			target := f.String()
			if _, err := io.WriteString(u, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); err != nil {
				return
			}
			br := bufio.NewReader(u)
			status, err := br.ReadString('\n')
			if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
				return
			}
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if line == "\r\n" || line == "\n" {
					break
				}
			}
			if n := br.Buffered(); n > 0 {
				pre, _ := br.Peek(n)
				if _, err := c.Write(pre); err != nil {
					return
				}
			}
			bridgeConnOn(c, u)
		}()
	}
}
