package netallow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a [Proxy].
type Options struct {
	// Dir is a private directory (mode 0700, owned by this user) for the
	// unix sockets http.sock and socks.sock. It is created when missing.
	// "" means no unix sockets.
	Dir string
	// TCP also listens on ephemeral ports on 127.0.0.1, for backends
	// without their own network namespace (Landlock, seatbelt). Any local
	// user can connect to these.
	TCP bool
	// OnDecision, when set, is called once for every decision as it is
	// made (BytesUp and BytesDown are still zero then). Calls are
	// serialised.
	OnDecision func(Decision)
	// Log receives a one-line note for each distinct refusal
	// ("safeexec: network: ..."); nil means none.
	Log io.Writer
}

// Decision is one allow-or-refuse decision of the proxy.
type Decision struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Allowed bool   `json:"allowed"`
	// Reason says why a request was refused, or "" when allowed.
	Reason string `json:"reason,omitempty"`
	// Proto is "http" (plain forward request), "connect" or "socks5".
	Proto string `json:"proto"`
	// BytesUp and BytesDown count what went to and came from the target.
	BytesUp   int64 `json:"bytes_up"`
	BytesDown int64 `json:"bytes_down"`
	// Count is how many requests [Proxy.Decisions] merged into this one
	// (same host, port, outcome, reason and protocol).
	Count int `json:"count"`
}

// Proxy is a running allowlisting proxy: an HTTP forward proxy (plain
// absolute-URI requests and CONNECT) and a SOCKS5 server.
type Proxy struct {
	m    *Matcher
	opts Options

	httpSock, socksSock string
	httpPort, socksPort int
	listeners           []net.Listener
	createdDir          bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	log    decisionLog
	dns    map[string]dnsEntry

	cbMu sync.Mutex
}

// dialTimeout bounds one connection attempt to one address; a test may
// shorten it.
var dialTimeout = 10 * time.Second

// maxConns bounds the client connections one proxy serves at once. A
// command that opens connections without end, or holds them with half a
// request (slowloris), would otherwise spend safeexec's descriptors and
// memory, which the rest of the run needs (the sweep of protected paths,
// the audit record). Connections past the bound are closed at once. A
// test may lower it.
var maxConns = 4096

// headTimeout bounds how long a client may take to send a request head or
// a SOCKS handshake, and how long an idle keep-alive connection is kept.
var headTimeout = 2 * time.Minute

// Start starts a proxy enforcing m. With neither o.Dir nor o.TCP it has
// nothing to listen on and fails.
func Start(m *Matcher, o Options) (*Proxy, error) {
	if m == nil {
		return nil, errors.New("start network proxy: no matcher")
	}
	if o.Dir == "" && !o.TCP {
		return nil, errors.New("start network proxy: neither a socket directory nor TCP requested")
	}
	p := &Proxy{m: m, opts: o, conns: map[net.Conn]struct{}{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	fail := func(err error) (*Proxy, error) {
		p.Close()
		return nil, fmt.Errorf("start network proxy: %w", err)
	}
	if o.Dir != "" {
		// The socket paths are handed into the sandbox, where the
		// working directory may differ.
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return fail(err)
		}
		o.Dir, p.opts.Dir = dir, dir
		created, err := privateDir(o.Dir)
		if err != nil {
			return fail(err)
		}
		p.createdDir = created
		p.httpSock = filepath.Join(o.Dir, "http.sock")
		p.socksSock = filepath.Join(o.Dir, "socks.sock")
		for _, s := range []struct {
			path  string
			serve func(net.Conn)
		}{{p.httpSock, p.serveHTTP}, {p.socksSock, p.serveSOCKS}} {
			ln, err := listenUnix(s.path)
			if err != nil {
				return fail(err)
			}
			p.listeners = append(p.listeners, ln)
			p.accept(ln, s.serve)
		}
	}
	if o.TCP {
		for _, s := range []struct {
			port  *int
			serve func(net.Conn)
		}{{&p.httpPort, p.serveHTTP}, {&p.socksPort, p.serveSOCKS}} {
			// Loopback clients need no keep-alive probes.
			lc := net.ListenConfig{KeepAlive: -1}
			lc.SetMultipathTCP(false)
			ln, err := lc.Listen(p.ctx, "tcp4", "127.0.0.1:0")
			if err != nil {
				return fail(err)
			}
			*s.port = ln.Addr().(*net.TCPAddr).Port
			p.listeners = append(p.listeners, ln)
			p.accept(ln, s.serve)
		}
	}
	return p, nil
}

// AcceptHTTP serves the HTTP proxy on ln as well, and AcceptSOCKS the
// SOCKS5 server: listeners the caller created elsewhere, such as on the
// loopback of the sandbox's own network namespace. Close closes them.
func (p *Proxy) AcceptHTTP(ln net.Listener) error { return p.acceptExtra(ln, p.serveHTTP) }

// AcceptSOCKS: see AcceptHTTP.
func (p *Proxy) AcceptSOCKS(ln net.Listener) error { return p.acceptExtra(ln, p.serveSOCKS) }

func (p *Proxy) acceptExtra(ln net.Listener, serve func(net.Conn)) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return errors.New("network proxy: closed")
	}
	p.listeners = append(p.listeners, ln)
	p.mu.Unlock()
	p.accept(ln, serve)
	return nil
}

// privateDir makes sure dir is a directory only this user can enter,
// creating it when missing, and reports whether it created it.
func privateDir(dir string) (bool, error) {
	err := os.Mkdir(dir, 0o700)
	created := err == nil
	if err != nil && !errors.Is(err, os.ErrExist) {
		return false, fmt.Errorf("socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return false, fmt.Errorf("socket directory: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("socket directory %s: not a directory", dir)
	}
	if err := checkPrivate(dir, fi); err != nil {
		return false, err
	}
	return created, nil
}

func listenUnix(path string) (net.Listener, error) {
	if len(path) >= 104 {
		// sun_path is 108 bytes on Linux, 104 on macOS.
		return nil, fmt.Errorf("socket path %s: longer than 103 bytes; use a shorter directory", path)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		// A stale socket from an earlier run in the same private
		// directory; anything else in its place is an error below.
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	return ln, nil
}

func (p *Proxy) accept(ln net.Listener, serve func(net.Conn)) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				if p.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
					return
				}
				// EMFILE and friends: back off instead of spinning.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if p.full() {
				c.Close()
				continue
			}
			if !p.track(c) {
				c.Close()
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer p.untrack(c)
				serve(c)
			}()
		}
	}()
}

// full reports whether the proxy holds maxConns connections.
func (p *Proxy) full() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns) >= maxConns
}

// track registers a live connection so Close can end it; false once the
// proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// HTTPSocket is the path of the HTTP proxy's unix socket, or "".
func (p *Proxy) HTTPSocket() string { return p.httpSock }

// SOCKSSocket is the path of the SOCKS5 server's unix socket, or "".
func (p *Proxy) SOCKSSocket() string { return p.socksSock }

// HTTPPort is the HTTP proxy's port on 127.0.0.1, or 0 without Options.TCP.
func (p *Proxy) HTTPPort() int { return p.httpPort }

// SOCKSPort is the SOCKS5 server's port on 127.0.0.1, or 0 without
// Options.TCP.
func (p *Proxy) SOCKSPort() int { return p.socksPort }

// Decisions returns everything decided so far, merged by host, port,
// outcome, reason and protocol, in the order first seen. Byte counts of
// connections still open are those transferred so far; after Close they
// are final.
func (p *Proxy) Decisions() []Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.list()
}

// Close stops listening, ends every open connection and tunnel, waits for
// them, and removes the sockets (and Dir, when Start created it).
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.cancel()
	for _, ln := range p.listeners {
		ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	if p.createdDir {
		return os.Remove(p.opts.Dir)
	}
	return nil
}

// decisionLog merges decisions for the audit record. It holds at most
// maxDistinct distinct keys, so a command inventing names cannot grow it
// without bound; the rest are counted in one overflow entry.
type decisionLog struct {
	index map[decisionKey]int
	items []Decision
	noted map[decisionKey]bool
}

type decisionKey struct {
	host    string
	port    int
	allowed bool
	reason  string
	proto   string
}

const maxDistinct = 4096

func (l *decisionLog) add(d Decision) int {
	if l.index == nil {
		l.index = map[decisionKey]int{}
	}
	k := decisionKey{d.Host, d.Port, d.Allowed, d.Reason, d.Proto}
	i, ok := l.index[k]
	if !ok {
		if len(l.items) >= maxDistinct {
			k = decisionKey{host: "(more)", allowed: d.Allowed, reason: "too many distinct hosts to record", proto: d.Proto}
			i, ok = l.index[k]
		}
		if !ok {
			i = len(l.items)
			l.index[k] = i
			l.items = append(l.items, Decision{Host: k.host, Port: k.port, Allowed: k.allowed, Reason: k.reason, Proto: k.proto})
		}
	}
	l.items[i].Count++
	return i
}

func (l *decisionLog) list() []Decision {
	return append([]Decision(nil), l.items...)
}

// record logs a decision and returns a handle for adding byte counts. A
// refusal is noted on Options.Log once per host, port and reason, with
// hint saying what to do about it.
func (p *Proxy) record(d Decision, hint string) int {
	p.mu.Lock()
	i := p.log.add(d)
	note := false
	if !d.Allowed && p.opts.Log != nil {
		if p.log.noted == nil {
			p.log.noted = map[decisionKey]bool{}
		}
		k := decisionKey{host: d.Host, port: d.Port, reason: d.Reason}
		if !p.log.noted[k] && len(p.log.noted) < maxDistinct {
			p.log.noted[k] = true
			note = true
		}
	}
	p.mu.Unlock()
	if note {
		fmt.Fprintf(p.opts.Log, "safeexec: network: refused %s (%s)%s\n", hostPort(d.Host, d.Port), d.Reason, hint)
	}
	if p.opts.OnDecision != nil {
		p.cbMu.Lock()
		p.opts.OnDecision(d)
		p.cbMu.Unlock()
	}
	return i
}

func (p *Proxy) addBytes(i int, up, down int64) {
	p.mu.Lock()
	p.log.items[i].BytesUp += up
	p.log.items[i].BytesDown += down
	p.mu.Unlock()
}

// refusal is a policy refusal: the client gets 403 or SOCKS "not allowed".
type refusal struct {
	host    string
	port    int
	reason  string
	invalid bool // the host is malformed: HTTP answers 400
	guard   bool // the address guard refused what the name resolves to
}

func (r *refusal) Error() string { return hostPort(r.host, r.port) + ": " + r.reason }

// message is the text the client sees.
func (r *refusal) message() string {
	const not = " is not in the network allowlist"
	switch {
	case r.invalid:
		return "safeexec: " + r.reason
	case r.guard:
		return "safeexec: " + r.host + not + ": " + r.reason + " (only an entry for that address itself allows it)"
	case r.reason == reasonPort:
		return "safeexec: " + r.host + not + " for port " + strconv.Itoa(r.port)
	case r.reason == reasonDenied:
		return "safeexec: " + r.host + not + " (it is denied)"
	}
	return "safeexec: " + r.host + not
}

// hint is the what-to-do-next part of the note on safeexec's stderr.
func (r *refusal) hint() string {
	switch {
	case r.invalid || r.reason == reasonDenied:
		return ""
	case r.guard:
		return " — allow-list the address itself (e.g. \"" + hostPortEntry(r.reason, r.port) + "\") if the command needs it"
	}
	entry := hostPort(r.host, r.port)
	if r.port == 80 || r.port == 443 {
		entry = r.host
		if strings.IndexByte(entry, ':') >= 0 {
			entry = "[" + entry + "]"
		}
	}
	return " — add it to [network] allowed_domains or pass --allow-domain " + entry + " if the command needs it"
}

// hostPortEntry turns "link-local address 169.254.169.254" into the entry
// that would allow it.
func hostPortEntry(reason string, port int) string {
	a := reason[strings.LastIndexByte(reason, ' ')+1:]
	return hostPort(a, port)
}

// connect decides host:port, resolves an allowed name, keeps only the
// addresses the guard lets through and dials them in turn. The decision is
// recorded; the returned index is for byte counts. A refusal is returned as
// *refusal; a name that does not resolve or an unreachable target as
// another error. The name of a refused host is never resolved.
func (p *Proxy) connect(rawHost string, port int, proto string) (net.Conn, int, error) {
	v := p.m.decide(rawHost, port)
	if !v.ok {
		rf := &refusal{v.host, port, v.reason, v.invalid, v.guard}
		i := p.record(Decision{Host: v.host, Port: port, Reason: v.reason, Proto: proto}, rf.hint())
		return nil, i, rf
	}
	addrs, err := p.resolve(v)
	if err != nil {
		i := p.record(Decision{Host: v.host, Port: port, Reason: "cannot resolve: " + shortErr(err), Proto: proto}, "")
		return nil, i, fmt.Errorf("resolve %s: %w", v.host, err)
	}
	var ok []netip.Addr
	var why string
	for _, a := range addrs {
		if w := p.m.checkAddr(a, port); w != "" {
			if why == "" {
				why = "it resolves to " + w
			}
			continue
		}
		ok = append(ok, a.Unmap())
	}
	if len(ok) == 0 {
		if why == "" {
			why = "it resolves to no address"
		}
		rf := &refusal{v.host, port, why, false, true}
		i := p.record(Decision{Host: v.host, Port: port, Reason: why, Proto: proto}, rf.hint())
		return nil, i, rf
	}
	i := p.record(Decision{Host: v.host, Port: port, Allowed: true, Proto: proto}, "")
	var lastErr error
	for n, a := range ok {
		timeout := dialTimeout
		if n < len(ok)-1 && timeout > 3*time.Second {
			timeout = 3 * time.Second
		}
		// Keep-alive probes find dead peers of long tunnels; the
		// system's interval and count do (two socket options fewer
		// per connection).
		d := net.Dialer{Timeout: timeout, KeepAliveConfig: net.KeepAliveConfig{
			Enable: true, Idle: 30 * time.Second, Interval: -1, Count: -1}}
		c, err := d.DialContext(p.ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, i, nil
		}
		lastErr = err
	}
	return nil, i, lastErr
}

func (p *Proxy) resolve(v verdict) ([]netip.Addr, error) {
	if v.addr.IsValid() {
		return []netip.Addr{v.addr}, nil
	}
	if v.host == "localhost" {
		// Never asked of a resolver: "localhost" is loopback (RFC 6761),
		// whatever a hosts file or DNS server would say.
		return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}, nil
	}
	now := time.Now()
	p.mu.Lock()
	e, ok := p.dns[v.host]
	p.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.addrs, nil
	}
	ctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", v.host)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.dns == nil || len(p.dns) >= maxDistinct {
		p.dns = map[string]dnsEntry{}
	}
	p.dns[v.host] = dnsEntry{addrs, now.Add(dnsTTL)}
	p.mu.Unlock()
	return addrs, nil
}

// dnsEntry is a cached answer. Answers are kept briefly so a burst of
// connections to one registry does not wait on DNS each time; every
// cached address still passes the guard on every use.
type dnsEntry struct {
	addrs []netip.Addr
	until time.Time
}

// dnsTTL is how long an answer is reused, whatever its DNS TTL (the
// resolver does not report it).
var dnsTTL = 30 * time.Second

func shortErr(err error) string {
	var de *net.DNSError
	if errors.As(err, &de) {
		if de.IsNotFound {
			return "no such host"
		}
		if de.IsTimeout {
			return "timeout"
		}
		return de.Err
	}
	return err.Error()
}

// track a connection made on behalf of a client so Close ends it too.
func (p *Proxy) trackUp(c net.Conn) bool {
	if !p.track(c) {
		c.Close()
		return false
	}
	return true
}
