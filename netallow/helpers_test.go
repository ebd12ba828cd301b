package netallow

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// origin is a real server on one of the test addresses that counts every
// connection it accepts and records every request it serves.
type origin struct {
	name string
	addr string
	mu   sync.Mutex
	n    int      // connections accepted
	reqs []string // "METHOD Host /path"
	raw  bytes.Buffer
}

func (o *origin) accepts() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

func (o *origin) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.reqs...)
}

func (o *origin) rawBytes() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.raw.String()
}

type countingListener struct {
	net.Listener
	o *origin
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.o.mu.Lock()
		l.o.n++
		l.o.mu.Unlock()
	}
	return c, err
}

func listen(t testing.TB, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	return ln
}

// startOrigin serves HTTP (or HTTPS) on addr. Paths: /redirect redirects
// to http://denied.test/, /upload answers with the body's length, /big
// sends 1 MiB, /git/ serves gitDir.
func startOrigin(t testing.TB, name, addr string, useTLS bool, gitDir string) *origin {
	t.Helper()
	o := &origin{name: name, addr: addr}
	mux := http.NewServeMux()
	if gitDir != "" {
		mux.Handle("/git/", http.StripPrefix("/git/", http.FileServer(http.Dir(gitDir))))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.reqs = append(o.reqs, r.Method+" "+r.Host+" "+r.URL.Path)
		o.mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "http://denied.test/", http.StatusFound)
			return
		case "/upload":
			n, _ := io.Copy(io.Discard, r.Body)
			fmt.Fprintf(w, "origin=%s got=%d\n", name, n)
			return
		case "/big":
			w.Write(bytes.Repeat([]byte("x"), 1<<20))
			return
		case "/npm/-/ping":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
			return
		case "/chunked":
			for i := range 3 {
				fmt.Fprintf(w, "part%d ", i)
				w.(http.Flusher).Flush()
			}
			fmt.Fprintf(w, "origin=%s\n", name)
			return
		}
		fmt.Fprintf(w, "origin=%s host=%s path=%s\n", name, r.Host, r.URL.Path)
	})
	s := httptest.NewUnstartedServer(mux)
	s.Listener.Close()
	s.Listener = countingListener{listen(t, addr), o}
	if useTLS {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return o
}

// startRawOrigin records the bytes of every connection, and answers each
// with one line once the peer stops sending for a moment.
func startRawOrigin(t testing.TB, name, addr string) *origin {
	t.Helper()
	o := &origin{name: name, addr: addr}
	ln := listen(t, addr)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			o.mu.Lock()
			o.n++
			o.mu.Unlock()
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
					n, err := c.Read(buf)
					o.mu.Lock()
					o.raw.Write(buf[:n])
					o.mu.Unlock()
					if err != nil {
						break
					}
				}
				fmt.Fprintf(c, "raw-origin=%s\n", name)
			}()
		}
	}()
	return o
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProxy starts a proxy with unix sockets and TCP ports.
func startProxy(t testing.TB, allowed, denied []string) (*Proxy, *syncBuffer) {
	t.Helper()
	m, err := NewMatcher(allowed, denied)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := os.MkdirTemp("", "na")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	log := &syncBuffer{}
	p, err := Start(m, Options{Dir: filepath.Join(parent, "s"), TCP: true, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, log
}

func (p *Proxy) httpURL() string   { return fmt.Sprintf("http://127.0.0.1:%d", p.HTTPPort()) }
func (p *Proxy) socksAddr() string { return fmt.Sprintf("127.0.0.1:%d", p.SOCKSPort()) }

// run runs a real client and returns its stdout, stderr and exit code.
func run(t testing.TB, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed", name)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(cleanEnv(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", name, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// cleanEnv is the test's environment without any proxy settings.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !isProxyVar(name) && !strings.HasPrefix(name, "GIT_CONFIG_") {
			env = append(env, kv)
		}
	}
	return env
}

// decided reports whether p decided host:port with the given outcome.
func decided(p *Proxy, host string, port int, allowed bool) bool {
	for _, d := range p.Decisions() {
		if d.Host == host && d.Port == port && d.Allowed == allowed {
			return true
		}
	}
	return false
}

// rawRequest sends raw bytes to the proxy's HTTP port and returns all it
// answers until it closes or goes quiet.
func rawExchange(t testing.TB, addr, send string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, send); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	buf := make([]byte, 4096)
	for {
		c.SetReadDeadline(time.Now().Add(time.Second))
		n, err := c.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return out.String()
}
