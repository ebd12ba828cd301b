package netallow

import (
	"bufio"
	"context"

	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type testOrigins struct {
	allowed, allowedTLS, allowed8080 *origin
	denied, deniedTLS                *origin
	meta, lo, private                *origin
}

// startOrigins starts the servers behind the test names (testHosts).
func startOrigins(t *testing.T) *testOrigins {
	t.Helper()
	requireEnv(t)
	git := gitRepo(t)
	return &testOrigins{
		allowed:     startOrigin(t, "allowed", "198.51.100.1:80", false, git),
		allowedTLS:  startOrigin(t, "allowed-tls", "198.51.100.1:443", true, git),
		allowed8080: startOrigin(t, "allowed-8080", "198.51.100.1:8080", false, ""),
		denied:      startOrigin(t, "denied", "198.51.100.2:80", false, git),
		deniedTLS:   startOrigin(t, "denied-tls", "198.51.100.2:443", true, git),
		meta:        startOrigin(t, "metadata", "169.254.169.254:80", false, ""),
		lo:          startOrigin(t, "loopback", "127.0.0.1:80", false, ""),
		private:     startOrigin(t, "private", "10.1.2.3:80", false, ""),
	}
}

func (o *testOrigins) assertUntouched(t *testing.T, which ...*origin) {
	t.Helper()
	for _, w := range which {
		if n := w.accepts(); n != 0 {
			t.Errorf("origin %s accepted %d connections, want none (requests %q)", w.name, n, w.requests())
		}
	}
}

var gitRepoDir string

// gitRepo makes a bare repository served over dumb HTTP at /git/repo.git.
func gitRepo(t *testing.T) string {
	t.Helper()
	if gitRepoDir != "" {
		return gitRepoDir
	}
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	dir, err := os.MkdirTemp("", "netallow-git-")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	for _, args := range [][]string{
		{"init", "-q", src},
		{"-C", src, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "hello from the origin"},
		{"clone", "-q", "--bare", src, filepath.Join(dir, "repo.git")},
		{"-C", filepath.Join(dir, "repo.git"), "update-server-info"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRepoDir = dir
	return dir
}

const pyFetch = `
import sys, ssl, urllib.request, urllib.error
ctx = ssl._create_unverified_context()
try:
    print(urllib.request.urlopen(sys.argv[1], context=ctx, timeout=10).read().decode(), end="")
except urllib.error.HTTPError as e:
    print("HTTP", e.code, e.read().decode(), end="")
    sys.exit(3)
except Exception as e:
    print("ERR", e)
    sys.exit(4)
`

func goClient(proxy string) *http.Client {
	u, _ := url.Parse(proxy)
	return &http.Client{
		Transport: &http.Transport{
			Proxy:           http.ProxyURL(u),
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
}

func goFetch(c *http.Client, u string) (int, string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestClientsReachAllowedName: curl, git, Python and Go reach an allowed
// name over plain HTTP and through CONNECT.
func TestClientsReachAllowedName(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test"}, nil)
	px := p.httpURL()
	env := []string{"http_proxy=" + px, "https_proxy=" + px, "GIT_SSL_NO_VERIFY=1"}

	t.Run("curl/plain", func(t *testing.T) {
		out, errOut, code := run(t, nil, "curl", "-sS", "--max-time", "10", "-x", px, "http://allowed.test/plain")
		if code != 0 || !strings.Contains(out, "origin=allowed host=allowed.test path=/plain") {
			t.Fatalf("curl: exit %d, out %q, err %q", code, out, errOut)
		}
	})
	t.Run("curl/connect-tls", func(t *testing.T) {
		out, errOut, code := run(t, nil, "curl", "-sS", "-k", "--max-time", "10", "-x", px, "https://allowed.test/tls")
		if code != 0 || !strings.Contains(out, "origin=allowed-tls host=allowed.test path=/tls") {
			t.Fatalf("curl: exit %d, out %q, err %q", code, out, errOut)
		}
	})
	t.Run("curl/connect-plain", func(t *testing.T) {
		out, errOut, code := run(t, nil, "curl", "-sS", "-p", "--max-time", "10", "-x", px, "http://allowed.test/tunnel")
		if code != 0 || !strings.Contains(out, "path=/tunnel") {
			t.Fatalf("curl -p: exit %d, out %q, err %q", code, out, errOut)
		}
	})
	t.Run("go/unix-socket", func(t *testing.T) {
		c := goClient("http://proxy.invalid")
		c.Transport.(*http.Transport).DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", p.HTTPSocket())
		}
		for _, u := range []string{"http://allowed.test/unix", "https://allowed.test/unix"} {
			status, body, err := goFetch(c, u)
			if err != nil || status != 200 || !strings.Contains(body, "path=/unix") {
				t.Fatalf("%s over the unix socket: %d %q %v", u, status, body, err)
			}
		}
	})
	for _, scheme := range []string{"http", "https"} {
		t.Run("git/"+scheme, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "clone")
			_, errOut, code := run(t, env, "git", "clone", "-q", scheme+"://allowed.test/git/repo.git", dst)
			if code != 0 {
				t.Fatalf("git clone: exit %d: %s", code, errOut)
			}
			log, _, _ := run(t, nil, "git", "-C", dst, "log", "--format=%s")
			if strings.TrimSpace(log) != "hello from the origin" {
				t.Fatalf("cloned log = %q", log)
			}
		})
		t.Run("python/"+scheme, func(t *testing.T) {
			out, errOut, code := run(t, env, "python3", "-c", pyFetch, scheme+"://allowed.test/py")
			if code != 0 || !strings.Contains(out, "host=allowed.test path=/py") {
				t.Fatalf("python: exit %d, out %q, err %q", code, out, errOut)
			}
		})
		t.Run("go/"+scheme, func(t *testing.T) {
			status, body, err := goFetch(goClient(px), scheme+"://allowed.test/go")
			if err != nil || status != 200 || !strings.Contains(body, "host=allowed.test path=/go") {
				t.Fatalf("go: %d %q %v", status, body, err)
			}
		})
	}
	o.assertUntouched(t, o.denied, o.deniedTLS, o.meta, o.lo, o.private)
	if !decided(p, "allowed.test", 80, true) || !decided(p, "allowed.test", 443, true) {
		t.Errorf("decisions %+v lack allowed.test:80 and :443", p.Decisions())
	}
	for _, d := range p.Decisions() {
		if d.Allowed && d.Proto == "connect" && (d.BytesUp == 0 || d.BytesDown == 0) {
			t.Errorf("decision %+v counts no bytes", d)
		}
	}
}

// TestDeniedNameRefused: a name that is not listed, or denied, is refused
// over plain HTTP, CONNECT and SOCKS, the server sees nothing and the name
// is never resolved.
func TestDeniedNameRefused(t *testing.T) {
	o := startOrigins(t)
	p, log := startProxy(t, []string{"allowed.test", "*.wild.test", "exfil.test"}, []string{"bad.wild.test", "exfil.test"})
	px := p.httpURL()
	env := []string{"http_proxy=" + px, "https_proxy=" + px, "GIT_SSL_NO_VERIFY=1"}
	for _, host := range []string{"denied.test", "bad.wild.test"} {
		t.Run(host, func(t *testing.T) {
			out, _, code := run(t, nil, "curl", "-sS", "--max-time", "10", "-x", px, "http://"+host+"/")
			want := "safeexec: " + host + " is not in the network allowlist"
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("curl plain: exit %d, out %q; want %q", code, out, want)
			}
			_, errOut, code := run(t, nil, "curl", "-sS", "-k", "--max-time", "10", "-x", px, "https://"+host+"/")
			if code == 0 || !strings.Contains(errOut, "403") {
				t.Errorf("curl CONNECT: exit %d, err %q; want a 403 refusal", code, errOut)
			}
			_, errOut, code = run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5-hostname", p.socksAddr(), "http://"+host+"/")
			// curl prints the SOCKS reply code: 2, not allowed by ruleset.
			if code == 0 || !strings.Contains(errOut, "(2)") {
				t.Errorf("curl SOCKS: exit %d, err %q; want reply 2 (not allowed by ruleset)", code, errOut)
			}
			out, _, code = run(t, env, "python3", "-c", pyFetch, "http://"+host+"/")
			if code != 3 || !strings.Contains(out, "HTTP 403") {
				t.Errorf("python: exit %d, out %q", code, out)
			}
			_, _, code = run(t, env, "git", "ls-remote", "https://"+host+"/git/repo.git")
			if code == 0 {
				t.Errorf("git ls-remote through CONNECT to %s succeeded", host)
			}
			status, _, err := goFetch(goClient(px), "http://"+host+"/")
			if err != nil || status != 403 {
				t.Errorf("go plain: %d %v", status, err)
			}
			if _, _, err := goFetch(goClient(px), "https://"+host+"/"); err == nil {
				t.Errorf("go CONNECT to %s succeeded", host)
			}
			if decided(p, host, 80, true) || !decided(p, host, 80, false) {
				t.Errorf("decisions %+v", p.Decisions())
			}
		})
	}
	o.assertUntouched(t, o.denied, o.deniedTLS)
	if got := o.allowed.accepts() + o.allowedTLS.accepts(); got != 0 {
		t.Errorf("allowed origin got %d connections from refused requests", got)
	}

	// Names that are never looked up: not listed, or denied although a
	// wildcard allows them, over every protocol.
	for _, name := range []string{"secret-data.leak.test", "exfil.test"} {
		run(t, nil, "curl", "-sS", "--max-time", "10", "-x", px, "http://"+name+"/")
		run(t, nil, "curl", "-sS", "--max-time", "10", "-p", "-x", px, "http://"+name+"/")
		run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5-hostname", p.socksAddr(), "http://"+name+"/")
		if dnsQueried(name) {
			t.Errorf("refused name %s was sent to the DNS server", name)
		}
	}
	// The DNS server does see what the proxy resolves, so the check
	// above can fail.
	p2, _ := startProxy(t, []string{"dns-allowed.test"}, nil)
	out, errOut, code := run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5-hostname", p2.socksAddr(), "http://dns-allowed.test/")
	if code != 0 || !strings.Contains(out, "origin=allowed host=dns-allowed.test") || !dnsQueried("dns-allowed.test") {
		t.Errorf("SOCKS to a name from DNS: exit %d, out %q, err %q, queried %v", code, out, errOut, dnsQueried("dns-allowed.test"))
	}

	// Answers are reused for a while: a second connection asks nothing.
	asked := dnsQueries("dns-allowed.test")
	if status, _, err := goFetch(goClient(p2.httpURL()), "http://dns-allowed.test/again"); err != nil || status != 200 {
		t.Errorf("second fetch: %d %v", status, err)
	}
	if again := dnsQueries("dns-allowed.test"); again != asked {
		t.Errorf("DNS asked %d more times for a name resolved a moment ago", again-asked)
	}

	notes := log.String()
	if !strings.Contains(notes, "safeexec: network: refused denied.test:80 (not in the network allowlist)") {
		t.Errorf("refusal notes %q", notes)
	}
	if n := strings.Count(notes, "refused denied.test:80 "); n != 1 {
		t.Errorf("denied.test:80 noted %d times, want once", n)
	}
	for line := range strings.Lines(notes) {
		if !strings.HasPrefix(line, "safeexec: network: refused ") {
			t.Errorf("note %q", line)
		}
	}
}

// TestWildcardAndPorts checks entries end to end through the proxy.
func TestWildcardAndPorts(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"*.wild.test", "port.test:8080", "other.test:*"}, nil)
	c := goClient(p.httpURL())
	for _, tc := range []struct {
		url  string
		want int
	}{
		{"http://a.b.wild.test/", 200},
		{"https://c.wild.test/", 200},
		{"http://wild.test/", 403},
		{"http://a.b.wild.test:8080/", 403},
		{"http://port.test:8080/", 200},
		{"http://port.test/", 403},
		{"https://port.test/", 0},
		{"http://other.test:8080/", 200},
		{"http://other.test/", 200},
		{"https://other.test/", 200},
		{"http://www.allowed.test/", 403},
	} {
		status, body, err := goFetch(c, tc.url)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("%s: %d, want a refused CONNECT", tc.url, status)
			}
			continue
		}
		if err != nil || status != tc.want {
			t.Errorf("%s: %d %q %v, want %d", tc.url, status, body, err, tc.want)
		}
	}
	status, body, _ := goFetch(c, "http://port.test/")
	if status != 403 || !strings.Contains(body, "safeexec: port.test is not in the network allowlist for port 80") {
		t.Errorf("wrong-port refusal: %d %q", status, body)
	}
	if got := o.allowed.requests(); len(got) != 2 {
		t.Errorf("origin on :80 served %q, want a.b.wild.test and other.test", got)
	}
}

// TestDeniedBeatsAllowed: a denied entry wins over a wildcard, an exact
// entry and an any-port entry.
func TestDeniedBeatsAllowed(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"*.wild.test:*", "denied.test", "denied.test:*"}, []string{"bad.wild.test", "denied.test"})
	c := goClient(p.httpURL())
	for _, u := range []string{"http://bad.wild.test/", "http://denied.test/", "http://denied.test:8080/"} {
		if status, body, err := goFetch(c, u); err != nil || status != 403 {
			t.Errorf("%s: %d %q %v, want 403", u, status, body, err)
		}
	}
	if status, _, err := goFetch(c, "http://c.wild.test/"); err != nil || status != 200 {
		t.Errorf("c.wild.test: %d %v", status, err)
	}
	o.assertUntouched(t, o.denied)
}

// TestAddressGuard: an allowed name that resolves to the metadata
// endpoint, loopback or a private network is refused before anything is
// sent, unless the address itself (or localhost) is listed.
func TestAddressGuard(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"meta.test", "lo.test", "private.test", "dns-meta.test", "*.wild.test"}, nil)
	px := p.httpURL()
	for _, tc := range []struct{ host, class string }{
		{"meta.test", "link-local address 169.254.169.254"},
		{"dns-meta.test", "link-local address 169.254.169.254"},
		{"lo.test", "loopback address 127.0.0.1"},
		{"private.test", "private address 10.1.2.3"},
	} {
		out, _, _ := run(t, nil, "curl", "-sS", "--max-time", "10", "-x", px, "http://"+tc.host+"/")
		want := "safeexec: " + tc.host + " is not in the network allowlist: it resolves to " + tc.class
		if !strings.Contains(out, want) {
			t.Errorf("%s plain: %q, want %q", tc.host, out, want)
		}
		_, errOut, code := run(t, nil, "curl", "-sS", "-p", "--max-time", "10", "-x", px, "http://"+tc.host+"/")
		if code == 0 || !strings.Contains(errOut, "403") {
			t.Errorf("%s CONNECT: exit %d %q", tc.host, code, errOut)
		}
		_, errOut, code = run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5-hostname", p.socksAddr(), "http://"+tc.host+"/")
		if code == 0 {
			t.Errorf("%s SOCKS: exit 0 %q", tc.host, errOut)
		}
	}
	// IP literals in any spelling.
	for _, u := range []string{"http://169.254.169.254/", "http://0xa9fea9fe/", "http://2130706433/", "http://127.1/",
		"http://[::ffff:127.0.0.1]/", "http://0177.0.0.1/", "http://10.1.2.3/", "http://0/"} {
		resp := rawExchange(t, p.httpURL()[len("http://"):], "GET "+u+" HTTP/1.1\r\nConnection: close\r\n\r\n")
		if !strings.HasPrefix(resp, "HTTP/1.1 403 ") {
			t.Errorf("%s: %q", u, resp)
		}
	}
	o.assertUntouched(t, o.meta, o.lo, o.private)

	// Listing the address, or localhost for loopback, lets it through.
	p2, _ := startProxy(t, []string{"meta.test", "169.254.169.254:80", "lo.test", "localhost:80", "private.test", "10.1.2.3"}, nil)
	c := goClient(p2.httpURL())
	for _, u := range []string{"http://meta.test/", "http://lo.test/", "http://private.test/", "http://127.0.0.1/", "http://localhost/"} {
		if status, body, err := goFetch(c, u); err != nil || status != 200 {
			t.Errorf("%s with its address listed: %d %q %v", u, status, body, err)
		}
	}
	if status, _, _ := goFetch(c, "http://169.254.169.254:8080/"); status != 403 {
		t.Errorf("169.254.169.254:8080 allowed by an entry for port 80")
	}
}

// TestRelay: a CONNECT sent inside a tunnel to an allowed host goes to that
// host as data; it never reaches the proxy or a denied host.
func TestRelay(t *testing.T) {
	o := startOrigins(t)
	raw := startRawOrigin(t, "relay", "198.51.100.1:9000")
	p, _ := startProxy(t, []string{"allowed.test:9000"}, nil)
	for _, proto := range []string{"connect", "socks5"} {
		var c net.Conn
		var err error
		if proto == "connect" {
			c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort()))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "CONNECT allowed.test:9000 HTTP/1.1\r\nHost: allowed.test:9000\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("outer CONNECT: %v %v", resp, err)
			}
		} else {
			c = socksDial(t, p.socksAddr(), "allowed.test", 9000)
		}
		inner := "CONNECT denied.test:80 HTTP/1.1\r\nHost: denied.test:80\r\n\r\nGET http://denied.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n"
		io.WriteString(c, inner)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		reply, _ := io.ReadAll(c)
		c.Close()
		if !strings.Contains(string(reply), "raw-origin=relay") {
			t.Errorf("%s: reply %q, want the allowed origin's", proto, reply)
		}
	}
	if got := raw.rawBytes(); strings.Count(got, "CONNECT denied.test:80") != 2 {
		t.Errorf("allowed origin received %q, want both inner CONNECTs as data", got)
	}
	o.assertUntouched(t, o.denied)
	if decided(p, "denied.test", 80, false) || decided(p, "denied.test", 80, true) {
		t.Error("the proxy decided the inner CONNECT; it should never have seen it")
	}
}

// socksDial opens a SOCKS5 CONNECT to a domain name and checks the reply.
func socksDial(t *testing.T, proxy, host string, port int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	req := []byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}
	req = append(req, host...)
	req = append(req, byte(port>>8), byte(port))
	c.Write(req)
	var reply [12]byte
	if _, err := io.ReadFull(c, reply[:12]); err != nil || reply[1] != 0 || reply[3] != 0 {
		t.Fatalf("SOCKS CONNECT %s:%d: %v % x", host, port, err, reply)
	}
	return c
}

// TestPipelined: requests sent back to back on one connection are each
// decided, answered in order, and the connection survives a refusal.
func TestPipelined(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test", "www.allowed.test"}, nil)
	reqs := "GET http://allowed.test/one HTTP/1.1\r\nHost: allowed.test\r\n\r\n" +
		"GET http://denied.test/two HTTP/1.1\r\nHost: denied.test\r\n\r\n" +
		"POST http://www.allowed.test/upload HTTP/1.1\r\nHost: www.allowed.test\r\nContent-Length: 5\r\n\r\nhello" +
		"POST http://allowed.test/upload HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" +
		"GET http://allowed.test/chunked HTTP/1.1\r\nHost: allowed.test\r\n\r\n" +
		"GET http://allowed.test/last HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n"
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, reqs)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for i, want := range []struct {
		status int
		body   string
	}{
		{200, "path=/one"}, {403, "safeexec: denied.test is not in the network allowlist"},
		{200, "got=5"}, {200, "got=3"}, {200, "part0 part1 part2 origin=allowed"}, {200, "path=/last"},
	} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want.status || !strings.Contains(string(body), want.body) {
			t.Errorf("response %d: %d %q, want %d %q", i, resp.StatusCode, body, want.status, want.body)
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("connection not closed after Connection: close: %v", err)
	}
	want := []string{"GET allowed.test /one", "POST www.allowed.test /upload", "POST allowed.test /upload",
		"GET allowed.test /chunked", "GET allowed.test /last"}
	if got := o.allowed.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("origin served %q, want %q", got, want)
	}
	o.assertUntouched(t, o.denied)
}

// TestHostHeader: the Host header must name the request's target; the
// origin never sees a foreign Host.
func TestHostHeader(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test", "allowed.test:8080", "denied-but-allowed.test"}, nil)
	addr := fmt.Sprintf("127.0.0.1:%d", p.HTTPPort())
	for _, tc := range []struct {
		req  string
		want string
	}{
		{"GET http://allowed.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n", "HTTP/1.1 403 "},
		{"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test:8080\r\n\r\n", "HTTP/1.1 403 "},
		{"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test@denied.test\r\n\r\n", "HTTP/1.1 403 "},
		{"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nHost: denied.test\r\n\r\n", "HTTP/1.1 400 "},
		{"GET http://allowed.test/ HTTP/1.1\r\nHost: \r\n\r\n", "HTTP/1.1 403 "},
		{"CONNECT allowed.test:443 HTTP/1.1\r\nHost: denied.test:443\r\n\r\n", "HTTP/1.1 403 "},
		{"GET http://denied.test@allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", "origin=allowed host=allowed.test"},
		{"GET http://ALLOWED.test./x HTTP/1.1\r\nHost: allowed.TEST\r\nConnection: close\r\n\r\n", "origin=allowed host=allowed.test path=/x"},
		{"GET http://allowed.test:80/y HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n", "origin=allowed host=allowed.test path=/y"},
		{"GET http://allowed.test/z HTTP/1.0\r\n\r\n", "origin=allowed host=allowed.test path=/z"},
		{"GET http://allowed.test:8080/w HTTP/1.1\r\nHost: allowed.test:8080\r\nConnection: close\r\n\r\n", "origin=allowed-8080 host=allowed.test:8080 path=/w"},
	} {
		got := rawExchange(t, addr, tc.req)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.req, got, tc.want)
		}
	}
	for _, r := range append(o.allowed.requests(), o.allowed8080.requests()...) {
		if !strings.Contains(r, " allowed.test") {
			t.Errorf("origin saw request %q", r)
		}
	}
	if n := len(o.allowed.requests()); n != 4 {
		t.Errorf("origin served %d requests, want 4: %q", n, o.allowed.requests())
	}
	o.assertUntouched(t, o.denied)
}

// TestMalformedRequests: framing that two parsers could read differently is
// refused before anything reaches an origin.
func TestMalformedRequests(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test"}, nil)
	addr := fmt.Sprintf("127.0.0.1:%d", p.HTTPPort())
	for _, req := range []string{
		"POST http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked, identity\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: xchunked\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
		"POST http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: +5\r\n\r\nhello",
		"POST http://allowed.test/ HTTP/1.0\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nX-A: b\r\n c\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost : allowed.test\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\rX: y\r\n\r\n",
		"GET /relative HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"GET https://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"GET ftp://allowed.test/ HTTP/1.1\r\n\r\n",
		"GET http://allowed.test/ HTTP/2.0\r\n\r\n",
		"GET  http://allowed.test/ HTTP/1.1\r\n\r\n",
		"GET http://allowed.test/#frag HTTP/1.1\r\n\r\n",
		"GET http://allowed%2etest/ HTTP/1.1\r\n\r\n",
		"GET http://[allowed.test]/ HTTP/1.1\r\n\r\n",
		"CONNECT allowed.test HTTP/1.1\r\n\r\n",
		"CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n",
		"CONNECT http://allowed.test:443 HTTP/1.1\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n",
	} {
		got := rawExchange(t, addr, req)
		if !strings.HasPrefix(got, "HTTP/1.1 4") && !strings.HasPrefix(got, "HTTP/1.1 505") {
			name := req
			if len(name) > 100 {
				name = name[:100]
			}
			t.Errorf("%q: got %q, want a 4xx refusal", name, got)
		}
	}
	o.assertUntouched(t, o.allowed, o.denied)
}

// TestRedirectGoesBackToClient: the proxy does not follow a redirect; a
// client that follows it asks again and is refused.
func TestRedirectGoesBackToClient(t *testing.T) {
	o := startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test"}, nil)
	out, _, code := run(t, nil, "curl", "-sS", "-i", "--max-time", "10", "-x", p.httpURL(), "http://allowed.test/redirect")
	if code != 0 || !strings.Contains(out, "302 Found") || !strings.Contains(out, "Location: http://denied.test/") {
		t.Errorf("redirect: exit %d %q", code, out)
	}
	out, _, _ = run(t, nil, "curl", "-sS", "-L", "--max-time", "10", "-x", p.httpURL(), "http://allowed.test/redirect")
	if !strings.Contains(out, "safeexec: denied.test is not in the network allowlist") {
		t.Errorf("followed redirect: %q", out)
	}
	o.assertUntouched(t, o.denied)
}

// TestUploads: large bodies, Expect: 100-continue and chunked uploads pass
// in both framings.
func TestUploads(t *testing.T) {
	startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test"}, nil)
	f := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(f, []byte(strings.Repeat("z", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--data-binary", "@" + f},
		{"--data-binary", "@" + f, "-H", "Expect:"},
		{"--data-binary", "@" + f, "-H", "Transfer-Encoding: chunked"},
		{"-T", f, "-X", "POST"},
	} {
		a := append([]string{"-sS", "--max-time", "20", "-x", p.httpURL()}, args...)
		out, errOut, code := run(t, nil, "curl", append(a, "http://allowed.test/upload")...)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("got=%d", 3<<20)) {
			t.Errorf("curl %v: exit %d %q %q", args, code, out, errOut)
		}
	}
	out, _, code := run(t, nil, "curl", "-sS", "--max-time", "20", "-x", p.httpURL(), "-o", "/dev/null", "-w", "%{size_download}", "http://allowed.test/big")
	if code != 0 || out != fmt.Sprint(1<<20) {
		t.Errorf("download: exit %d, %q bytes", code, out)
	}
}

// TestUpgrade: a WebSocket-style upgrade on a plain request becomes a
// tunnel to the decided host.
func TestUpgrade(t *testing.T) {
	requireEnv(t)
	ln := listen(t, "198.51.100.1:8081")
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Header.Get("Upgrade") != "echo" || req.Host != "allowed.test:8081" {
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		io.Copy(c, br)
	}()
	p, _ := startProxy(t, []string{"allowed.test:8081"}, nil)
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://allowed.test:8081/ws HTTP/1.1\r\nHost: allowed.test:8081\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nping")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo through the upgraded connection: %q %v", buf, err)
	}
}

// TestSOCKS covers the SOCKS5 server's replies.
func TestSOCKS(t *testing.T) {
	startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test", "198.51.100.1:8080"}, nil)
	out, errOut, code := run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5-hostname", p.socksAddr(), "http://allowed.test/s")
	if code != 0 || !strings.Contains(out, "origin=allowed host=allowed.test path=/s") {
		t.Errorf("socks5h: exit %d %q %q", code, out, errOut)
	}
	out, errOut, code = run(t, nil, "curl", "-sS", "-k", "--max-time", "10", "--socks5-hostname", p.socksAddr(), "https://allowed.test/s")
	if code != 0 || !strings.Contains(out, "origin=allowed-tls") {
		t.Errorf("socks5h TLS: exit %d %q %q", code, out, errOut)
	}
	// An IP target must itself be listed.
	out, _, code = run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5", p.socksAddr(), "http://198.51.100.1:8080/ip")
	if code != 0 || !strings.Contains(out, "origin=allowed-8080") {
		t.Errorf("socks5 to a listed IP: exit %d %q", code, out)
	}
	if _, _, code = run(t, nil, "curl", "-sS", "--max-time", "10", "--socks5", p.socksAddr(), "http://198.51.100.1/ip"); code == 0 {
		t.Error("socks5 to an unlisted IP succeeded")
	}
	addr := p.socksAddr()
	for _, tc := range []struct {
		name      string
		send      []byte
		wantReply []byte
	}{
		{"no acceptable method", []byte{5, 1, 2}, []byte{5, 0xff}},
		{"bind", []byte{5, 1, 0, 5, 2, 0, 1, 198, 51, 100, 1, 0, 80}, []byte{5, 0, 5, 7}},
		{"udp associate", []byte{5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, []byte{5, 0, 5, 7}},
		{"bad address type", []byte{5, 1, 0, 5, 1, 0, 9, 0, 0}, []byte{5, 0, 5, 8}},
		{"denied name", append(append([]byte{5, 1, 0, 5, 1, 0, 3, 11}, "denied.test"...), 0, 80), []byte{5, 0, 5, 2}},
		{"metadata ip", []byte{5, 1, 0, 5, 1, 0, 1, 169, 254, 169, 254, 0, 80}, []byte{5, 0, 5, 2}},
		{"port zero", append(append([]byte{5, 1, 0, 5, 1, 0, 3, 12}, "allowed.test"...), 0, 0), []byte{5, 0, 5, 2}},
		{"socks4", []byte{4, 1, 0, 80, 198, 51, 100, 1, 0}, nil},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(tc.send)
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		got, _ := io.ReadAll(c)
		c.Close()
		if len(got) < len(tc.wantReply) || string(got[:len(tc.wantReply)]) != string(tc.wantReply) || tc.wantReply == nil && len(got) != 0 {
			t.Errorf("%s: reply % x, want % x...", tc.name, got, tc.wantReply)
		}
	}
}

// TestCloseEndsTunnels: Close ends open tunnels, waits, and removes the
// sockets.
func TestCloseEndsTunnels(t *testing.T) {
	requireEnv(t)
	ln := listen(t, "198.51.100.1:9001")
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	p, _ := startProxy(t, []string{"allowed.test:9001"}, nil)
	c := socksDial(t, p.socksAddr(), "allowed.test", 9001)
	defer c.Close()
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return with a tunnel open")
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("tunnel still open after Close: %v", err)
	}
	for _, s := range []string{p.HTTPSocket(), p.SOCKSSocket(), filepath.Dir(p.HTTPSocket())} {
		if _, err := os.Lstat(s); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", s, err)
		}
	}
	if _, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort())); err == nil {
		t.Error("TCP port still listening after Close")
	}
}

func TestStartRefusesSharedDirectory(t *testing.T) {
	m, _ := NewMatcher(nil, nil)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Start(m, Options{Dir: dir}); err == nil {
		p.Close()
		t.Fatal("Start accepted a socket directory other users can enter")
	}
	if _, err := Start(m, Options{}); err == nil {
		t.Fatal("Start with nothing to listen on succeeded")
	}
	if _, err := Start(m, Options{Dir: "/" + strings.Repeat("d", 120)}); err == nil {
		t.Fatal("Start accepted a socket path too long for sun_path")
	}
}

func TestOnDecision(t *testing.T) {
	startOrigins(t)
	m, _ := NewMatcher([]string{"allowed.test"}, nil)
	var got []Decision
	p, err := Start(m, Options{TCP: true, OnDecision: func(d Decision) { got = append(got, d) }})
	if err != nil {
		t.Fatal(err)
	}
	c := goClient(p.httpURL())
	for range 3 {
		goFetch(c, "http://allowed.test/")
	}
	goFetch(c, "http://denied.test/")
	p.Close()
	if len(got) != 4 || !got[0].Allowed || got[3].Allowed || got[3].Host != "denied.test" || got[3].Reason != reasonNotListed {
		t.Errorf("OnDecision saw %+v", got)
	}
	ds := p.Decisions()
	if len(ds) != 2 || ds[0].Count != 3 || ds[0].BytesDown == 0 || ds[0].BytesUp == 0 || ds[1].Count != 1 {
		t.Errorf("Decisions() = %+v, want allowed.test x3 with bytes, denied.test x1", ds)
	}
}

// TestResponseFraming: responses are relayed by their real length, so the
// next request on the client's connection starts where it should.
func TestResponseFraming(t *testing.T) {
	requireEnv(t)
	ln := listen(t, "198.51.100.1:9002")
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				switch req.URL.Path {
				case "/both":
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
				case "/eof":
					io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\nuntil-close")
				case "/head":
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
				case "/nocontent":
					io.WriteString(c, "HTTP/1.1 204 No Content\r\n\r\n")
				case "/continue":
					io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			}()
		}
	}()
	p, _ := startProxy(t, []string{"allowed.test:9002"}, nil)
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for _, tc := range []struct {
		method, path, body string
		code               int
	}{
		{"GET", "/both", "abc", 200},
		{"HEAD", "/head", "", 200},
		{"GET", "/nocontent", "", 204},
		{"GET", "/continue", "ok", 200},
		{"GET", "/eof", "until-close", 200},
	} {
		fmt.Fprintf(c, "%s http://allowed.test:9002%s HTTP/1.1\r\nHost: allowed.test:9002\r\n\r\n", tc.method, tc.path)
		resp, err := http.ReadResponse(br, &http.Request{Method: tc.method})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if resp.StatusCode == 100 {
			resp, err = http.ReadResponse(br, &http.Request{Method: tc.method})
			if err != nil {
				t.Fatalf("%s after 100: %v", tc.path, err)
			}
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != tc.code || string(body) != tc.body {
			t.Errorf("%s: %d %q %v, want %d %q", tc.path, resp.StatusCode, body, err, tc.code, tc.body)
		}
		if tc.path == "/both" && resp.Header.Get("Content-Length") != "" {
			t.Errorf("/both: Content-Length %q passed on beside chunked", resp.Header.Get("Content-Length"))
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("connection open after a close-delimited response: %v", err)
	}
}

// TestConnectionBound: a command that opens connections without end, or
// holds them with half a request, gets no more than maxConns at once; the
// rest are closed, and once it lets go the proxy serves again.
func TestConnectionBound(t *testing.T) {
	startOrigins(t)
	saved := maxConns
	maxConns = 8
	defer func() { maxConns = saved }()
	p, _ := startProxy(t, []string{"allowed.test"}, nil)
	addr := p.httpURL()[len("http://"):]
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 8; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("GET http://allowed.test/ HTTP/1.1\r\n")) // half a head
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("a connection past the bound was not closed: %d %v", n, err)
	}
	c.Close()
	for _, c := range held {
		c.Close()
	}
	held = nil
	time.Sleep(100 * time.Millisecond)
	resp := rawExchange(t, addr, "GET http://allowed.test/after HTTP/1.1\r\nConnection: close\r\n\r\n")
	if !strings.Contains(resp, "path=/after") {
		t.Errorf("after the held connections closed: %q", resp)
	}
}
