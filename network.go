package safeexec

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/netallow"
	"github.com/safeexec/safeexec/sandbox"
)

// networkUse is the proxy of one run and what it decided.
type networkUse struct {
	proxy *netallow.Proxy
	dir   string

	mu      sync.Mutex
	allowed map[string]bool
	denied  map[string]bool
}

// startNetwork starts the allowlist proxy and tells the sandbox how to
// reach it: a backend with its own network namespace (bwrap) gets the
// proxy's unix sockets and runs the bridge inside; the others may connect
// only to the proxy's loopback ports, named in the proxy variables.
func (p *pipeline) startNetwork(sp *sandbox.Policy, cmd *sandbox.Command) error {
	pol := p.req.Policy
	m, err := netallow.NewMatcher(pol.AllowedDomains, pol.DeniedDomains)
	if err != nil {
		return fmt.Errorf("network allowlist: %w", err)
	}
	bridged := p.backend.Name() == "bwrap"
	opts := netallow.Options{TCP: !bridged, OnDecision: p.network.note, Log: p.req.Notes}
	if bridged {
		dir, err := prelaunch.MakeRunDir(prelaunch.NetPrefix)
		if err != nil {
			return fmt.Errorf("network proxy: %w", err)
		}
		p.network.dir = dir
		opts.Dir = dir
	}
	prx, err := netallow.Start(m, opts)
	if err != nil {
		p.network.close()
		return fmt.Errorf("network proxy: %w", err)
	}
	p.network.proxy = prx
	sp.Network = sandbox.Network{Enabled: true}
	if bridged {
		sp.Network.ProxyDir = p.network.dir
		// Allowed loopback ports (a dev server on the host) are forwarded
		// into the sandbox: there "localhost" is the sandbox's own.
		fwd := m.LoopbackForwards()
		sp.Network.Bridge = append(p.bridge(), netallow.BridgeArgs(prx.HTTPSocket(), prx.SOCKSSocket(), fwd...)...)
		// Where bwrap can run in a network namespace made for it (as
		// root), the proxy listens in there itself and no bridge starts;
		// the bridge, when it runs, sets these variables to its own ports.
		sp.Network.Listen = func(open sandbox.ListenFunc) error { return listenInside(prx, fwd, open) }
		cmd.Env = netallow.WithProxyEnv(cmd.Env, sandbox.NamespaceHTTPPort, sandbox.NamespaceSOCKSPort)
		return nil
	}
	sp.Network.ProxyHTTPPort = prx.HTTPPort()
	sp.Network.ProxySOCKSPort = prx.SOCKSPort()
	cmd.Env = netallow.WithProxyEnv(cmd.Env, prx.HTTPPort(), prx.SOCKSPort())
	return nil
}

func (n *networkUse) note(d netallow.Decision) {
	key := net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
	n.mu.Lock()
	defer n.mu.Unlock()
	if d.Allowed {
		if n.allowed == nil {
			n.allowed = map[string]bool{}
		}
		n.allowed[key] = true
	} else {
		if n.denied == nil {
			n.denied = map[string]bool{}
		}
		n.denied[key] = true
	}
}

// summary lists the distinct host:port pairs allowed and denied.
func (n *networkUse) summary() (allowed, denied []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return sortedKeys(n.allowed), sortedKeys(n.denied)
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	s := make([]string, 0, len(m))
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

func (n *networkUse) close() {
	if n.proxy != nil {
		n.proxy.Close()
	}
	if n.dir != "" {
		os.RemoveAll(n.dir)
	}
}

// listenInside opens the proxy's listeners on the loopback of the
// sandbox's network namespace with listen (see sandbox.Network.Listen).
func listenInside(prx *netallow.Proxy, fwd []netallow.Forward, listen sandbox.ListenFunc) error {
	h, err := listen("tcp4", "127.0.0.1", sandbox.NamespaceHTTPPort)
	if err != nil {
		return err
	}
	if err := prx.AcceptHTTP(h); err != nil {
		return err
	}
	s, err := listen("tcp4", "127.0.0.1", sandbox.NamespaceSOCKSPort)
	if err != nil {
		return err
	}
	if err := prx.AcceptSOCKS(s); err != nil {
		return err
	}
	for _, f := range fwd {
		if f.Port == sandbox.NamespaceHTTPPort || f.Port == sandbox.NamespaceSOCKSPort {
			continue // the proxy's own ports inside
		}
		for _, a := range []struct{ network, host string }{{"tcp4", "127.0.0.1"}, {"tcp6", "::1"}} {
			ln, err := listen(a.network, a.host, f.Port)
			if err != nil {
				if a.network == "tcp6" {
					continue // no IPv6 loopback: IPv4 serves
				}
				return fmt.Errorf("forward %s: %w", f, err)
			}
			if err := prx.AcceptForward(ln, f.Host, f.Port); err != nil {
				return err
			}
		}
	}
	return nil
}

// bridgeName is the separate bridge binary, looked for next to safeexec.
const bridgeName = "safeexec-bridge"

// bridge is the argv prefix that starts the in-sandbox bridge: the small
// safeexec-bridge installed next to safeexec when there is one (it starts
// in a fraction of safeexec's time), else safeexec itself re-executed.
// Whoever can replace the one can replace the other: both come from the
// directory safeexec runs from.
func (p *pipeline) bridge() []string {
	self := p.self()
	if self != "" {
		b := filepath.Join(filepath.Dir(self), bridgeName)
		if fi, err := os.Stat(b); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 && fi.Mode().Perm()&0o022 == 0 {
			return []string{b, "--protocol", netallow.BridgeProtocol}
		}
	}
	return []string{self, "__bridge"}
}
