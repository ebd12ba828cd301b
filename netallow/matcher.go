package netallow

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Entry is one parsed allowlist or denylist entry.
type Entry struct {
	// Host is the canonical host: a lower-case name without trailing dot,
	// or an IP address in its canonical text form. For a wildcard entry it
	// is the suffix after "*.".
	Host string
	// Wildcard entries ("*.example.com") match every name below Host, at
	// any depth, and never Host itself.
	Wildcard bool
	// Addr is set when Host is an IP literal.
	Addr netip.Addr
	// Port is the one port the entry names, or 0 when it names none (then
	// an allowed entry covers 80 and 443, a denied entry every port).
	Port int
	// AnyPort is true for "host:*".
	AnyPort bool
}

// String renders e in the syntax ParseEntry reads.
func (e Entry) String() string {
	h := e.Host
	if e.Addr.Is6() {
		h = "[" + h + "]"
	}
	if e.Wildcard {
		h = "*." + h
	}
	switch {
	case e.AnyPort:
		return h + ":*"
	case e.Port != 0:
		return h + ":" + strconv.Itoa(e.Port)
	}
	return h
}

// EntryError reports an entry that cannot be used. Configuration loaders
// report it as a configuration error.
type EntryError struct {
	// List is "allowed" or "denied" when the entry came through
	// NewMatcher, "" from ParseEntry.
	List  string
	Entry string
	// Reason says what is wrong, in words a user can act on.
	Reason string
}

func (e *EntryError) Error() string {
	list := ""
	if e.List != "" {
		list = e.List + " "
	}
	return fmt.Sprintf("%snetwork entry %q: %s", list, e.Entry, e.Reason)
}

// ParseEntry parses one entry: "example.com", "*.example.com" (every
// subdomain at any depth, not example.com itself), an IP literal
// ("10.0.0.5", "[::1]"), optionally followed by ":PORT" or ":*". Without a
// port an allowed entry covers 80 and 443. A bare "*", a wildcard over a
// single label ("*.com") or over an IP address, and URLs are rejected.
func ParseEntry(s string) (Entry, error) {
	bad := func(format string, a ...any) (Entry, error) {
		return Entry{}, &EntryError{Entry: s, Reason: fmt.Sprintf(format, a...)}
	}
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return bad("empty")
	case strings.Contains(t, "://"):
		return bad("a URL, not a host (write just the host, e.g. \"example.com\")")
	case strings.ContainsAny(t, "/?#@"):
		return bad("not a host (no paths, queries or user names)")
	}
	var e Entry
	host, port := t, ""
	switch {
	case strings.HasPrefix(t, "["):
		end := strings.IndexByte(t, ']')
		if end < 0 {
			return bad("unbalanced '['")
		}
		host, port = t[:end+1], t[end+1:]
		if port != "" {
			if port[0] != ':' {
				return bad("unexpected %q after the address", port)
			}
			port = port[1:]
			if port == "" {
				return bad("empty port")
			}
		}
	case strings.Count(t, ":") > 1:
		// A bare IPv6 address: no port possible without brackets.
	default:
		if i := strings.LastIndexByte(t, ':'); i >= 0 {
			host, port = t[:i], t[i+1:]
			if port == "" {
				return bad("empty port")
			}
		}
	}
	switch port {
	case "":
	case "*":
		e.AnyPort = true
	default:
		n, ok := parsePort(port)
		if !ok {
			return bad("port %q is not a number from 1 to 65535 or *", port)
		}
		e.Port = n
	}
	if host == "*" {
		return bad("a bare \"*\" would allow every host; list the domains instead")
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		e.Wildcard = true
		host = rest
	}
	if strings.Contains(host, "*") {
		return bad("\"*\" is only allowed as the first label (\"*.example.com\")")
	}
	h, addr, err := canonHost(host)
	if err != nil {
		return bad("%s", strings.TrimPrefix(err.Error(), "invalid host "+strconv.Quote(host)+": "))
	}
	e.Host, e.Addr = h, addr
	if e.Wildcard {
		if addr.IsValid() {
			return bad("a wildcard cannot apply to an IP address")
		}
		if !strings.Contains(h, ".") {
			return bad("a wildcard over a single label (%q) would allow a whole top-level domain", "*."+h)
		}
	}
	return e, nil
}

// portRule is the port part of an entry.
type portRule struct {
	port int  // 0: default
	any  bool // ":*"
}

func (r portRule) allows(port int) bool {
	switch {
	case r.any:
		return true
	case r.port != 0:
		return port == r.port
	}
	return port == 80 || port == 443
}

func (r portRule) denies(port int) bool {
	return r.any || r.port == 0 || r.port == port
}

// rules holds one list (allowed or denied) in lookup form.
type rules struct {
	exact    map[string][]portRule // names
	wildcard map[string][]portRule // suffixes of "*." entries
	addrs    map[netip.Addr][]portRule
	entries  []Entry
}

func newRules() rules {
	return rules{
		exact:    map[string][]portRule{},
		wildcard: map[string][]portRule{},
		addrs:    map[netip.Addr][]portRule{},
	}
}

func (r *rules) add(e Entry) {
	pr := portRule{port: e.Port, any: e.AnyPort}
	switch {
	case e.Addr.IsValid():
		r.addrs[e.Addr] = append(r.addrs[e.Addr], pr)
	case e.Wildcard:
		r.wildcard[e.Host] = append(r.wildcard[e.Host], pr)
	default:
		r.exact[e.Host] = append(r.exact[e.Host], pr)
	}
	r.entries = append(r.entries, e)
}

// nameMatch reports whether an entry names the canonical name h on port:
// an exact entry, or a wildcard over a proper suffix of h.
func (r *rules) nameMatch(h string, port int, deny bool) bool {
	if anyRule(r.exact[h], port, deny) {
		return true
	}
	for i := 0; i < len(h); i++ {
		if h[i] == '.' && anyRule(r.wildcard[h[i+1:]], port, deny) {
			return true
		}
	}
	return false
}

func (r *rules) addrMatch(a netip.Addr, port int, deny bool) bool {
	return anyRule(r.addrs[a], port, deny)
}

// loopbackMatch reports whether the list covers loopback on port: a
// "localhost" entry, or an entry for the loopback address itself.
func (r *rules) loopbackMatch(a netip.Addr, port int, deny bool) bool {
	return anyRule(r.exact["localhost"], port, deny) || anyRule(r.addrs[a], port, deny)
}

func anyRule(rs []portRule, port int, deny bool) bool {
	for _, r := range rs {
		if deny && r.denies(port) || !deny && r.allows(port) {
			return true
		}
	}
	return false
}

// Matcher decides which hosts and ports the proxy may connect to. It is
// safe for concurrent use.
type Matcher struct {
	allow, deny rules
}

// NewMatcher parses the allowed and denied entries. A denied entry beats
// every allowed one; a denied entry without a port denies every port. The
// error, an *EntryError, names the first bad entry.
func NewMatcher(allowed, denied []string) (*Matcher, error) {
	m := &Matcher{allow: newRules(), deny: newRules()}
	for _, list := range []struct {
		name    string
		entries []string
		r       *rules
	}{{"allowed", allowed, &m.allow}, {"denied", denied, &m.deny}} {
		for _, s := range list.entries {
			e, err := ParseEntry(s)
			if err != nil {
				err.(*EntryError).List = list.name
				return nil, err
			}
			list.r.add(e)
		}
	}
	return m, nil
}

// AllowedEntries returns the parsed allowed list, in order.
func (m *Matcher) AllowedEntries() []Entry { return append([]Entry(nil), m.allow.entries...) }

// DeniedEntries returns the parsed denied list, in order.
func (m *Matcher) DeniedEntries() []Entry { return append([]Entry(nil), m.deny.entries...) }

// Allowed reports whether host:port may be connected to, as far as the
// lists decide before any name is resolved: for an IP literal that is the
// whole decision; for a name the proxy still checks every address it
// resolves to (see [Proxy]). host may be in any spelling a client could
// send ("Example.COM.", "127.1", "[::1]").
func (m *Matcher) Allowed(host string, port int) bool {
	return m.decide(host, port).ok
}

// verdict is a decision before resolution.
type verdict struct {
	ok      bool
	host    string     // canonical, or the raw host when invalid
	addr    netip.Addr // when host is an IP literal
	reason  string     // why not, for refusals
	denied  bool       // refused by the denied list
	invalid bool       // not a host name or address at all
	guard   bool       // refused by the address guard
}

const (
	reasonNotListed = "not in the network allowlist"
	reasonDenied    = "denied by the network denylist"
	reasonPort      = "port not in the network allowlist"
)

func (m *Matcher) decide(rawHost string, port int) verdict {
	h, addr, err := canonHost(rawHost)
	if err != nil {
		return verdict{host: rawHost, reason: err.Error(), invalid: true}
	}
	v := verdict{host: h, addr: addr}
	if port < 1 || port > 65535 {
		v.reason = "invalid port " + strconv.Itoa(port)
		return v
	}
	if m.denies(h, addr, port) {
		v.reason, v.denied = reasonDenied, true
		return v
	}
	if m.allows(h, addr, port) {
		v.ok = true
		if addr.IsValid() {
			// An IP literal is connected to as is, so it passes the
			// same guard as a resolved address.
			if why := m.checkAddr(addr, port); why != "" {
				v.ok, v.reason, v.guard = false, why, true
			}
		}
		return v
	}
	v.reason = reasonNotListed
	if m.allows(h, addr, 80) || m.allows(h, addr, 443) || m.allowsSomePort(h, addr) {
		v.reason = reasonPort
	}
	return v
}

func (m *Matcher) denies(h string, addr netip.Addr, port int) bool {
	if addr.IsValid() {
		if m.deny.addrMatch(addr, port, true) {
			return true
		}
		return addr.IsLoopback() && anyRule(m.deny.exact["localhost"], port, true)
	}
	return m.deny.nameMatch(h, port, true)
}

func (m *Matcher) allows(h string, addr netip.Addr, port int) bool {
	if addr.IsValid() {
		if addr.IsLoopback() {
			return m.allow.loopbackMatch(addr, port, false)
		}
		return m.allow.addrMatch(addr, port, false)
	}
	if m.allow.nameMatch(h, port, false) {
		return true
	}
	if h == "localhost" {
		// "127.0.0.1:3000" listed: localhost:3000 is the same place.
		for a, rs := range m.allow.addrs {
			if a.IsLoopback() && anyRule(rs, port, false) {
				return true
			}
		}
	}
	return false
}

// allowsSomePort reports whether some entry names h with a specific port,
// to tell "wrong port" from "not listed" in messages.
func (m *Matcher) allowsSomePort(h string, addr netip.Addr) bool {
	var rs []portRule
	if addr.IsValid() {
		rs = m.allow.addrs[addr]
	} else {
		rs = m.allow.exact[h]
		for i := 0; i < len(h); i++ {
			if h[i] == '.' {
				rs = append(rs[:len(rs):len(rs)], m.allow.wildcard[h[i+1:]]...)
			}
		}
	}
	return len(rs) > 0
}

// checkAddr is the resolved-address guard: it returns "" when the proxy may
// connect to a on port, else why not ("link-local address 169.254.169.254"). Loopback, private, link-local
// (cloud metadata), shared, unspecified, multicast and reserved addresses
// are refused unless the address itself is allowed (or, for loopback,
// "localhost" is), and a denied address is refused whatever name led to it.
func (m *Matcher) checkAddr(a netip.Addr, port int) string {
	a = a.Unmap()
	if m.deny.addrMatch(a, port, true) || a.IsLoopback() && anyRule(m.deny.exact["localhost"], port, true) {
		return "denied address " + a.String()
	}
	class := addrClass(a)
	if class == "" {
		return ""
	}
	if m.allow.addrMatch(a, port, false) || a.IsLoopback() && anyRule(m.allow.exact["localhost"], port, false) {
		return ""
	}
	return class + " address " + a.String()
}
