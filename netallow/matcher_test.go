package netallow

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestCanonHost(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{"Example.COM.", "example.com"},
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0x7F.0.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"169.254.43518", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"0", "0.0.0.0"},
		{"[::1]", "::1"},
		{"::1", "::1"},
		{"[0:0:0:0:0:0:0:1]", "::1"},
		{"[::ffff:127.0.0.1]", "127.0.0.1"},
		{"[::FFFF:a9fe:a9fe]", "169.254.169.254"},
		{"1.2.3.4.", "1.2.3.4"},
		{"under_score.example", "under_score.example"},
		{"1e100.net", "1e100.net"},
		{"0xdeadbeef.com", "0xdeadbeef.com"},
	} {
		got, _, err := canonHost(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("canonHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		"", ".", "a..b", "exa mple.com", "ex%61mple.com", "example.com..", "[::1", "[127.0.0.1]",
		"[fe80::1%eth0]", "fe80::1%25eth0", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "1.2.65536", "4294967296",
		"08.1.1.1", "0x100000000", "example.123", "caf\xc3\xa9.com", "a\x00b", "a/b", "a@b", ":", "[]",
		strings.Repeat("a", 64) + ".com", strings.Repeat("a.", 130) + "com",
	} {
		if got, _, err := canonHost(bad); err == nil {
			t.Errorf("canonHost(%q) = %q, want an error", bad, got)
		} else if !errors.Is(err, errHost) {
			t.Errorf("canonHost(%q): error %v does not wrap errHost", bad, err)
		}
	}
}

func TestParseEntry(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Entry
	}{
		{"example.com", Entry{Host: "example.com"}},
		{" Example.COM. ", Entry{Host: "example.com"}},
		{"example.com:8080", Entry{Host: "example.com", Port: 8080}},
		{"example.com:*", Entry{Host: "example.com", AnyPort: true}},
		{"*.example.com", Entry{Host: "example.com", Wildcard: true}},
		{"*.co.uk:443", Entry{Host: "co.uk", Wildcard: true, Port: 443}},
		{"10.0.0.5", Entry{Host: "10.0.0.5", Addr: netip.MustParseAddr("10.0.0.5")}},
		{"127.1:3000", Entry{Host: "127.0.0.1", Addr: netip.MustParseAddr("127.0.0.1"), Port: 3000}},
		{"[::1]", Entry{Host: "::1", Addr: netip.MustParseAddr("::1")}},
		{"[::1]:8080", Entry{Host: "::1", Addr: netip.MustParseAddr("::1"), Port: 8080}},
		{"[::1]:*", Entry{Host: "::1", Addr: netip.MustParseAddr("::1"), AnyPort: true}},
		{"2001:db8::1", Entry{Host: "2001:db8::1", Addr: netip.MustParseAddr("2001:db8::1")}},
		{"localhost:3000", Entry{Host: "localhost", Port: 3000}},
	} {
		got, err := ParseEntry(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseEntry(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if err == nil {
			again, err := ParseEntry(got.String())
			if err != nil || again != got {
				t.Errorf("ParseEntry(%q).String() = %q does not parse back: %+v, %v", tc.in, got.String(), again, err)
			}
		}
	}
	for _, bad := range []string{
		"", "*", "*:443", "*.com", "*.com:*", "*.", "*.*.example.com", "foo.*.com", "*example.com", "example.*",
		"https://example.com", "example.com/path", "user@example.com", "example.com:", "example.com:0",
		"example.com:65536", "example.com:http", "example.com:-1", "[::1]:", "[::1]x", "[::1", "*.10.0.0.1",
		"*.[::1]", "exa mple.com", "1.2.3.4.5", "*.1.2.3",
	} {
		_, err := ParseEntry(bad)
		var ee *EntryError
		if !errors.As(err, &ee) {
			t.Errorf("ParseEntry(%q) = %v, want an *EntryError", bad, err)
			continue
		}
		if ee.Entry != bad {
			t.Errorf("ParseEntry(%q): error names entry %q", bad, ee.Entry)
		}
	}
}

func TestNewMatcherNamesBadEntry(t *testing.T) {
	_, err := NewMatcher([]string{"ok.example", "*.com"}, nil)
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Entry != "*.com" || ee.List != "allowed" {
		t.Fatalf("NewMatcher: %v, want an allowed-list EntryError for *.com", err)
	}
	if !strings.Contains(err.Error(), `"*.com"`) {
		t.Errorf("message %q does not name the entry", err)
	}
	_, err = NewMatcher(nil, []string{"*"})
	if !errors.As(err, &ee) || ee.List != "denied" {
		t.Fatalf("NewMatcher: %v, want a denied-list EntryError", err)
	}
}

func TestAllowed(t *testing.T) {
	m, err := NewMatcher(
		[]string{
			"example.com", "*.wild.test", "port.test:8080", "any.test:*", "10.0.0.5:5432",
			"localhost:3000", "[::1]:4000", "*.both.test", "both.test:*", "203.0.113.7",
			"*.deny-inside.test:*",
		},
		[]string{"bad.wild.test", "secret.deny-inside.test", "*.evil.deny-inside.test", "both.test:22", "203.0.113.7:443"},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host string
		port int
		want bool
	}{
		{"example.com", 443, true},
		{"example.com", 80, true},
		{"EXAMPLE.com.", 443, true},
		{"example.com", 8443, false},
		{"www.example.com", 443, false}, // exact entries do not cover subdomains
		{"a.wild.test", 443, true},
		{"a.b.c.wild.test", 80, true},
		{"wild.test", 443, false}, // never the apex
		{"xwild.test", 443, false},
		{"wild.test.evil", 443, false},
		{"a.wild.test", 22, false},
		{"bad.wild.test", 443, false},  // denied beats allowed
		{"x.bad.wild.test", 443, true}, // exact deny, not its subdomains
		{"port.test", 8080, true},
		{"port.test", 443, false},
		{"port.test", 80, false},
		{"any.test", 1, true},
		{"any.test", 65535, true},
		{"any.test", 0, false},
		{"any.test", 65536, false},
		{"sub.any.test", 443, false},
		{"10.0.0.5", 5432, true},
		{"10.0.0.5", 443, false},
		{"10.0.0.6", 5432, false},
		{"localhost", 3000, true},
		{"LocalHost.", 3000, true},
		{"localhost", 3001, false},
		{"127.0.0.1", 3000, true},  // localhost covers loopback
		{"127.1", 3000, true},      // in any spelling
		{"2130706433", 3000, true}, // decimal
		{"127.0.0.2", 3000, true},
		{"::1", 3000, true},
		{"[::1]", 4000, true},
		{"localhost", 4000, true}, // the loopback address entry covers localhost
		{"127.0.0.1", 4000, false},
		{"[::ffff:127.0.0.1]", 3000, true},
		{"169.254.169.254", 80, false},
		{"x.both.test", 443, true},
		{"both.test", 8080, true},
		{"both.test", 22, false},
		{"203.0.113.7", 80, true},
		{"203.0.113.7", 443, false}, // deny with port
		{"ok.deny-inside.test", 443, true},
		{"secret.deny-inside.test", 443, false},
		{"secret.deny-inside.test", 9999, false}, // a deny without port denies every port
		{"evil.deny-inside.test", 443, true},     // *.evil does not deny evil itself
		{"a.evil.deny-inside.test", 443, false},
		{"a.b.evil.deny-inside.test", 8080, false},
		{"", 443, false},
		{"exa mple.com", 443, false},
		{"example.com/", 443, false},
		{"example.com:443", 443, false},
	} {
		if got := m.Allowed(tc.host, tc.port); got != tc.want {
			t.Errorf("Allowed(%q, %d) = %v, want %v", tc.host, tc.port, got, tc.want)
		}
	}
}

func TestAllowedEmptyAndDenyAll(t *testing.T) {
	m, err := NewMatcher(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Allowed("example.com", 443) || m.Allowed("127.0.0.1", 80) {
		t.Error("an empty matcher allows something")
	}
	m, err = NewMatcher([]string{"localhost:*", "127.0.0.1:*"}, []string{"localhost"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"localhost", "127.0.0.1", "127.0.0.9", "::1"} {
		if m.Allowed(h, 8080) {
			t.Errorf("Allowed(%q) with localhost denied", h)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	m, err := NewMatcher([]string{"10.1.2.3:5432", "localhost:3000", "[fd00::5]:*", "169.254.169.254:80"},
		[]string{"198.51.100.66"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		port int
		ok   bool
	}{
		{"93.184.216.34", 443, true},
		{"2606:2800:220:1:248:1893:25c8:1946", 443, true},
		{"127.0.0.1", 443, false},
		{"127.0.0.1", 3000, true},
		{"127.8.9.10", 3000, true},
		{"::1", 3000, true},
		{"::ffff:127.0.0.1", 443, false},
		{"::ffff:127.0.0.1", 3000, true},
		{"169.254.169.254", 443, false},
		{"169.254.169.254", 80, true}, // listed itself
		{"169.254.1.1", 80, false},
		{"fe80::1", 443, false},
		{"fe80::a9fe:a9fe", 80, false},
		{"10.0.0.1", 443, false},
		{"10.1.2.3", 5432, true},
		{"10.1.2.3", 443, false},
		{"172.16.0.1", 443, false},
		{"172.31.255.255", 443, false},
		{"172.32.0.1", 443, true},
		{"192.168.1.1", 443, false},
		{"100.64.0.1", 443, false},
		{"100.127.255.255", 443, false},
		{"100.128.0.1", 443, true},
		{"fc00::1", 443, false},
		{"fd12:3456::1", 443, false},
		{"fd00::5", 22, true},
		{"0.0.0.0", 443, false},
		{"0.1.2.3", 443, false},
		{"::", 443, false},
		{"224.0.0.1", 443, false},
		{"ff02::1", 443, false},
		{"255.255.255.255", 443, false},
		{"::127.0.0.1", 443, false},
		{"64:ff9b::a9fe:a9fe", 80, false},
		{"64:ff9b::5db8:d822", 443, true},
		{"2002:a9fe:a9fe::1", 80, false},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", 443, true},
		{"2001:0:a9fe:a9fe::", 80, false},
		{"192.0.0.192", 80, false},
		{"198.51.100.66", 443, false}, // denied address, whatever name led there
		{"198.51.100.67", 443, true},
	} {
		why := m.checkAddr(netip.MustParseAddr(tc.addr), tc.port)
		if (why == "") != tc.ok {
			t.Errorf("checkAddr(%s, %d) = %q, want ok=%v", tc.addr, tc.port, why, tc.ok)
		}
	}
}

func BenchmarkAllowed(b *testing.B) {
	m, err := NewMatcher([]string{"registry.npmjs.org", "*.github.com", "*.githubusercontent.com", "pypi.org",
		"files.pythonhosted.org", "proxy.golang.org", "*.crates.io", "api.anthropic.com"}, []string{"gist.github.com"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !m.Allowed("objects.githubusercontent.com", 443) {
			b.Fatal("not allowed")
		}
	}
}
