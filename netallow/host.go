package netallow

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// errHost is wrapped by every error canonHost returns.
var errHost = errors.New("invalid host")

// canonHost turns a host as it appears in a URL authority, a CONNECT target,
// a SOCKS request or an allowlist entry into its canonical form: lower case,
// no trailing dot, IPv4 in dotted decimal (whatever spelling it came in:
// "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1"), IPv6 without brackets
// and IPv4-mapped IPv6 unmapped. When the host is an IP address, addr is
// valid and host is addr.String().
//
// Anything that is not a plain DNS name or IP literal (percent-escapes,
// zones, spaces, non-ASCII bytes, empty labels, a numeric last label that is
// not an IPv4 address) is an error: a host the proxy cannot read the same
// way as every client and resolver would is refused, not guessed at.
func canonHost(s string) (host string, addr netip.Addr, err error) {
	if s == "" {
		return "", addr, hostErr(s, "empty")
	}
	if s[0] == '[' {
		if len(s) < 2 || s[len(s)-1] != ']' {
			return "", addr, hostErr(s, "unbalanced brackets")
		}
		a, err := netip.ParseAddr(s[1 : len(s)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", addr, hostErr(s, "not an IPv6 address")
		}
		a = a.Unmap()
		return a.String(), a, nil
	}
	if strings.IndexByte(s, ':') >= 0 {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", addr, hostErr(s, "not an IPv6 address")
		}
		a = a.Unmap()
		return a.String(), a, nil
	}
	if len(s) > 254 {
		return "", addr, hostErr(s, "longer than 253 characters")
	}
	h := strings.TrimSuffix(s, ".")
	if h == "" {
		return "", addr, hostErr(s, "empty")
	}
	var b []byte
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		case 'A' <= c && c <= 'Z':
			if b == nil {
				b = []byte(h)
			}
			b[i] = c + 'a' - 'A'
		case c >= 0x80:
			return "", addr, hostErr(s, "not ASCII; write an international name in its xn-- (punycode) form")
		default:
			return "", addr, hostErr(s, "character "+quoteByte(c)+" not allowed in a host name")
		}
	}
	if b != nil {
		h = string(b)
	}
	last := h
	if i := strings.LastIndexByte(h, '.'); i >= 0 {
		last = h[i+1:]
	}
	if numericLabel(last) {
		a, ok := parseIPv4Loose(h)
		if !ok {
			return "", addr, hostErr(s, "numeric last label but not an IPv4 address")
		}
		return a.String(), a, nil
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return "", addr, hostErr(s, "empty label")
		}
		if len(label) > 63 {
			return "", addr, hostErr(s, "label longer than 63 characters")
		}
	}
	return h, addr, nil
}

func hostErr(s, why string) error {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return &hostError{host: s, why: why}
}

type hostError struct{ host, why string }

func (e *hostError) Error() string {
	return "invalid host " + strconv.Quote(e.host) + ": " + e.why
}

func (e *hostError) Unwrap() error { return errHost }

// numericLabel reports whether a last label makes a host an IPv4 address in
// the URL standard's sense: all decimal digits, or 0x followed by hex digits.
func numericLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		for i := 2; i < len(l); i++ {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// parseIPv4Loose parses the IPv4 spellings that inet_aton and URL parsers
// accept: one to four parts, each decimal, octal (leading 0) or hex (0x);
// the last part fills the remaining bytes.
func parseIPv4Loose(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums [4]uint64
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		if nums[i] > 255 {
			return netip.Addr{}, false
		}
		v |= nums[i] << (8 * (3 - i))
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v |= nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		var d uint64
		c := p[i]
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		n = n*base + d
		if n > 0xffffffff {
			return 0, false
		}
	}
	return n, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	const hex = "0123456789abcdef"
	return "0x" + string([]byte{hex[c>>4], hex[c&15]})
}

// hostPort renders host and port for messages and dialing, bracketing IPv6.
func hostPort(host string, port int) string {
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// parsePort parses a decimal TCP port, 1 to 65535, digits only.
func parsePort(s string) (int, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if n < 1 || n > 65535 {
		return 0, false
	}
	return n, true
}
