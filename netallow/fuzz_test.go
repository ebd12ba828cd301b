package netallow

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// FuzzRequestHead feeds arbitrary bytes to the request reader. Whatever it
// accepts must name a valid target, and the head the proxy would send
// upstream must carry exactly one Host header, naming that target, and no
// line break the reader did not put there.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n",
		"POST http://a.test:8080/x?y HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
		"POST http://u:p@[::1]/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close, x-foo\r\nX-Foo: 1\r\n\r\n0\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n",
		"GET http://0x7f.1/ HTTP/1.1\nConnection: Upgrade\nUpgrade: websocket\n\n",
		"\r\nGET http://a.test HTTP/1.1\r\nHost: a.test:80\r\nX: a\r\n b\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	m, err := NewMatcher([]string{"allowed.test", "*.wild.test:*"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := readHead(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		for _, l := range lines {
			if strings.ContainsAny(l, "\r\n\x00") {
				t.Fatalf("line %q holds a line break", l)
			}
		}
		r, err := parseRequest(lines)
		if err != nil {
			return
		}
		if r.port < 1 || r.port > 65535 {
			t.Fatalf("port %d", r.port)
		}
		v := m.decide(r.host, r.port)
		if v.ok && v.host != "allowed.test" && !strings.HasSuffix(v.host, ".wild.test") {
			t.Fatalf("%q allowed", v.host)
		}
		if r.connect || !v.ok || r.hostMismatch() != "" {
			return
		}
		if !strings.HasPrefix(r.path, "/") {
			t.Fatalf("path %q", r.path)
		}
		head := upstreamHead(r, v.host)
		hl, err := readHead(bufio.NewReader(strings.NewReader(head)))
		if err != nil {
			t.Fatalf("upstream head %q does not read back: %v", head, err)
		}
		hosts := 0
		for _, l := range hl[1:] {
			name, value, _ := strings.Cut(l, ":")
			if strings.EqualFold(name, "Host") {
				hosts++
				h, port, ok := splitAuthority(strings.TrimSpace(value), 80)
				if c, _, err := canonHost(h); !ok || err != nil || c != v.host || port != r.port {
					t.Fatalf("upstream Host %q for target %s:%d", value, v.host, r.port)
				}
			}
			if strings.EqualFold(name, "Proxy-Authorization") || strings.EqualFold(name, "Proxy-Connection") {
				t.Fatalf("hop-by-hop header %q forwarded", l)
			}
		}
		if hosts != 1 {
			t.Fatalf("upstream head has %d Host headers:\n%s", hosts, head)
		}
	})
}

// FuzzSOCKS feeds arbitrary bytes to the SOCKS5 handshake. An accepted
// request names a host that is decided like any other.
func FuzzSOCKS(f *testing.F) {
	f.Add([]byte{5, 1, 0, 5, 1, 0, 3, 12, 'a', 'l', 'l', 'o', 'w', 'e', 'd', '.', 't', 'e', 's', 't', 1, 187})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 80})
	f.Add([]byte{5, 2, 0, 2, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80})
	f.Add([]byte{5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80})
	f.Add([]byte{4, 1, 0, 80, 1, 2, 3, 4, 0})
	m, err := NewMatcher([]string{"allowed.test"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		host, port, err := socksHandshake(bytes.NewReader(data), &out)
		if err != nil {
			return
		}
		if len(host) > 255 || port < 0 || port > 65535 {
			t.Fatalf("host %q port %d", host, port)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte{5, 0}) {
			t.Fatalf("accepted without choosing no-auth: % x", out.Bytes())
		}
		if v := m.decide(host, port); v.ok && v.host != "allowed.test" {
			t.Fatalf("SOCKS host %q decided as allowed %q", host, v.host)
		}
	})
}

// FuzzCanonHost: canonical forms are fixed points and hold only the
// characters a DNS name or an address can.
func FuzzCanonHost(f *testing.F) {
	for _, s := range []string{"Example.COM.", "127.1", "0x7f.0.0.1", "[::ffff:1.2.3.4]", "2130706433", "a..b", "1.2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, addr, err := canonHost(s)
		if err != nil {
			return
		}
		again, addr2, err := canonHost(h)
		if err != nil || again != h || addr2 != addr {
			t.Fatalf("canonHost(%q) = %q, but canonHost(%q) = %q, %v", s, h, h, again, err)
		}
		if addr.IsValid() {
			if addr.String() != h || addr.Is4In6() {
				t.Fatalf("address %q canonical %q", addr, h)
			}
			return
		}
		for i := 0; i < len(h); i++ {
			c := h[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				t.Fatalf("canonical name %q holds %q", h, c)
			}
		}
	})
}

// FuzzChunked: the chunked copier passes through exactly what it checked
// and never more than its input.
func FuzzChunked(f *testing.F) {
	f.Add([]byte("3\r\nabc\r\n0\r\n\r\n"))
	f.Add([]byte("3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\nNEXT"))
	f.Add([]byte("fffffffffffffffff\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		n, err := copyChunked(&out, bufio.NewReader(bytes.NewReader(data)))
		if n != int64(out.Len()) {
			t.Fatalf("counted %d, wrote %d", n, out.Len())
		}
		if err == nil && !bytes.HasSuffix(out.Bytes(), []byte("\r\n\r\n")) && !bytes.HasSuffix(out.Bytes(), []byte("0\r\n\r\n")) {
			t.Fatalf("complete body %q does not end with its terminator", out.Bytes())
		}
	})
}
