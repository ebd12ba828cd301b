package netallow

import (
	"net"
	"strconv"
)

// AcceptForward serves ln, a listener inside the sandbox, by connecting
// every connection to host:port on the host through the same decision a
// CONNECT gets (allowlist, address guard, audit). It is how an allowed
// loopback entry such as "localhost:3000" reaches a dev server on the
// host's loopback: inside the sandbox "localhost" is the sandbox's own
// loopback, and clients do not send it to a proxy (no_proxy), so the port
// itself is forwarded.
func (p *Proxy) AcceptForward(ln net.Listener, host string, port int) error {
	return p.acceptExtra(ln, func(c net.Conn) {
		up, idx, err := p.connect(host, port, "forward")
		if err != nil {
			return
		}
		if !p.trackUp(up) {
			return
		}
		defer p.untrack(up)
		nUp, nDown := relay(c, nil, up, nil)
		p.addBytes(idx, nUp, nDown)
	})
}

// LoopbackForwards lists the ports of allowed entries that name the
// host's loopback with one explicit port ("localhost:3000",
// "127.0.0.1:8080", "[::1]:5432"), each with the host to connect to. Such
// ports are forwarded into the sandbox (AcceptForward). Entries with no
// port or ":*" are not: there is no single port to forward.
func (m *Matcher) LoopbackForwards() []Forward {
	var out []Forward
	seen := map[int]bool{}
	for _, e := range m.allow.entries {
		if e.AnyPort || e.Port == 0 || e.Wildcard || seen[e.Port] {
			continue
		}
		host := ""
		switch {
		case e.Host == "localhost":
			host = "localhost"
		case e.Addr.IsValid() && e.Addr.Unmap().IsLoopback():
			host = e.Addr.Unmap().String()
		default:
			continue
		}
		if !m.Allowed(host, e.Port) {
			continue // denied as well: deny wins
		}
		seen[e.Port] = true
		out = append(out, Forward{Host: host, Port: e.Port})
	}
	return out
}

// Forward is one loopback port forwarded into the sandbox.
type Forward struct {
	Host string
	Port int
}

func (f Forward) String() string { return net.JoinHostPort(f.Host, strconv.Itoa(f.Port)) }
