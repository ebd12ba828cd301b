package netallow

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// request is a parsed proxy request head.
type request struct {
	method, target, proto string
	headers               []header

	connect   bool
	host      string // as written in the target, brackets removed
	port      int
	path      string // origin-form for the upstream (plain requests)
	framing   framing
	length    int64
	keepAlive bool
	upgrade   string // Upgrade value when Connection lists "upgrade"
	expect    bool   // Expect: 100-continue
	hostHdr   string // the Host header, "" when absent
	hasHost   bool
}

// parseRequest parses a request head read by readHead. Only CONNECT with
// an authority-form target and absolute http:// URIs are proxy requests.
func parseRequest(lines []string) (*request, error) {
	parts := strings.Split(lines[0], " ")
	if len(parts) != 3 || !isToken(parts[0]) || parts[1] == "" {
		return nil, badRequest("malformed request line")
	}
	r := &request{method: parts[0], target: parts[1], proto: parts[2]}
	if r.proto != "HTTP/1.1" && r.proto != "HTTP/1.0" {
		return nil, &httpError{505, "only HTTP/1.0 and HTTP/1.1 are supported"}
	}
	for i := 0; i < len(r.target); i++ {
		if c := r.target[i]; c <= ' ' || c == 0x7f {
			return nil, badRequest("control character in the request target")
		}
	}
	hs, err := parseHeaders(lines[1:])
	if err != nil {
		return nil, err
	}
	r.headers = hs
	var conn []string
	for _, h := range hs {
		switch {
		case strings.EqualFold(h.name, "Host"):
			if r.hasHost {
				return nil, badRequest("more than one Host header")
			}
			r.hasHost, r.hostHdr = true, h.value
		case strings.EqualFold(h.name, "Connection"), strings.EqualFold(h.name, "Proxy-Connection"):
			conn = append(conn, tokens(h.value)...)
		case strings.EqualFold(h.name, "Expect"):
			r.expect = r.expect || strings.EqualFold(h.value, "100-continue")
		}
	}
	r.keepAlive = r.proto == "HTTP/1.1"
	wantsUpgrade := false
	for _, t := range conn {
		switch t {
		case "close":
			r.keepAlive = false
		case "upgrade":
			wantsUpgrade = true
		}
	}
	if wantsUpgrade {
		for _, h := range hs {
			if strings.EqualFold(h.name, "Upgrade") {
				r.upgrade = h.value
			}
		}
	}
	if r.proto == "HTTP/1.0" {
		for _, h := range hs {
			if strings.EqualFold(h.name, "Transfer-Encoding") {
				return nil, badRequest("Transfer-Encoding in an HTTP/1.0 request")
			}
		}
	}
	r.framing, r.length, err = bodyFraming(hs, true)
	if err != nil {
		return nil, err
	}
	if r.method == "CONNECT" {
		r.connect = true
		host, port, ok := splitAuthority(r.target, 0)
		if !ok {
			return nil, badRequest("CONNECT target must be host:port")
		}
		r.host, r.port = host, port
		return r, nil
	}
	scheme, rest, ok := strings.Cut(r.target, "://")
	if !ok {
		if strings.HasPrefix(r.target, "/") || r.target == "*" {
			return nil, badRequest("not a proxy request: use an absolute http:// URI or CONNECT")
		}
		return nil, badRequest("malformed request target")
	}
	if !strings.EqualFold(scheme, "http") {
		return nil, badRequest("only http:// URIs are forwarded; use CONNECT for " + strings.ToLower(scheme))
	}
	if strings.IndexByte(rest, '#') >= 0 {
		return nil, badRequest("fragment in the request target")
	}
	end := strings.IndexAny(rest, "/?")
	authority, path := rest, "/"
	if end >= 0 {
		authority, path = rest[:end], rest[end:]
		if path[0] == '?' {
			path = "/" + path
		}
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	host, port, ok := splitAuthority(authority, 80)
	if !ok {
		return nil, badRequest("malformed host in the request target")
	}
	r.host, r.port, r.path = host, port, path
	return r, nil
}

// splitAuthority splits "host[:port]" or "[v6][:port]". With defPort 0 a
// port is required.
func splitAuthority(a string, defPort int) (string, int, bool) {
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "", 0, false
		}
		host, port = a[:end+1], a[end+1:]
		if port != "" {
			if port[0] != ':' {
				return "", 0, false
			}
			port = port[1:]
		} else if defPort == 0 {
			return "", 0, false
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i+1:]
	} else if defPort == 0 {
		return "", 0, false
	}
	if host == "" || strings.ContainsAny(host, "/@?#%") {
		return "", 0, false
	}
	n := defPort
	if port != "" || defPort == 0 {
		var ok bool
		if n, ok = parsePort(port); !ok {
			return "", 0, false
		}
	}
	return host, n, true
}

// hostMismatch returns why the Host header does not name the request's
// target, or "". A Host header without a port means port 80 for a plain
// request and the target's port for CONNECT.
func (r *request) hostMismatch() string {
	if !r.hasHost {
		return ""
	}
	def := 80
	if r.connect {
		def = r.port
	}
	if h, port, ok := splitAuthority(r.hostHdr, def); ok && port == r.port {
		ch, _, err1 := canonHost(h)
		ct, _, err2 := canonHost(r.host)
		if err1 == nil && err2 == nil && ch == ct {
			return ""
		}
	}
	target := r.host
	if h, _, err := canonHost(r.host); err == nil {
		target = hostPort(h, r.port)
	}
	return "Host header " + strconv.Quote(r.hostHdr) + " does not match the request target " + target
}

// serveHTTP serves one client connection of the HTTP proxy: any number of
// plain requests (each decided on its own), or one CONNECT.
func (p *Proxy) serveHTTP(c net.Conn) {
	br := bufio.NewReaderSize(c, 16<<10)
	for {
		c.SetReadDeadline(time.Now().Add(headTimeout))
		lines, err := readHead(br)
		if err != nil {
			var he *httpError
			switch {
			case errors.As(err, &he):
				writeText(c, he.status, "safeexec: bad proxy request: "+he.msg, true)
			case err == errHeadTooLarge:
				writeText(c, 431, "safeexec: request head too large", true)
			}
			return
		}
		c.SetReadDeadline(time.Time{})
		r, err := parseRequest(lines)
		if err != nil {
			he := err.(*httpError)
			writeText(c, he.status, "safeexec: bad proxy request: "+he.msg, true)
			return
		}
		if r.connect {
			p.serveConnect(c, br, r)
			return
		}
		if !p.forward(c, br, r) {
			return
		}
	}
}

// refuse answers a refusal or connection error; it reports whether the
// client connection may carry another request.
func refuse(c net.Conn, err error, keepAlive bool) bool {
	var rf *refusal
	switch {
	case errors.As(err, &rf) && rf.invalid:
		writeText(c, 400, rf.message(), true)
		return false
	case errors.As(err, &rf):
		writeText(c, 403, rf.message(), !keepAlive)
		return keepAlive
	case isTimeout(err):
		writeText(c, 504, "safeexec: "+err.Error(), true)
	default:
		writeText(c, 502, "safeexec: "+err.Error(), true)
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
}

func (p *Proxy) serveConnect(c net.Conn, br *bufio.Reader, r *request) {
	if why := r.hostMismatch(); why != "" {
		host := r.host
		if h, _, err := canonHost(r.host); err == nil {
			host = h
		}
		p.record(Decision{Host: host, Port: r.port, Reason: why, Proto: "connect"}, "")
		writeText(c, 403, "safeexec: "+why+"; refused", true)
		return
	}
	up, idx, err := p.connect(r.host, r.port, "connect")
	if err != nil {
		refuse(c, err, false)
		return
	}
	if !p.trackUp(up) {
		return
	}
	defer p.untrack(up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	pre, _ := br.Peek(br.Buffered())
	nUp, nDown := relay(c, pre, up, nil)
	p.addBytes(idx, nUp, nDown)
}

// forward proxies one plain request and its response; it reports whether
// the client connection may carry another request.
func (p *Proxy) forward(c net.Conn, br *bufio.Reader, r *request) bool {
	hasBody := r.framing != noBody
	if why := r.hostMismatch(); why != "" {
		host := r.host
		if h, _, err := canonHost(r.host); err == nil {
			host = h
		}
		p.record(Decision{Host: host, Port: r.port, Reason: why, Proto: "http"}, "")
		writeText(c, 403, "safeexec: "+why+"; refused", true)
		return false
	}
	up, idx, err := p.connect(r.host, r.port, "http")
	if err != nil {
		// A refused request's body is not read; the connection ends
		// with it unless there is none.
		return refuse(c, err, r.keepAlive && !hasBody)
	}
	if !p.trackUp(up) {
		return false
	}
	defer p.untrack(up)

	host, _, _ := canonHost(r.host)
	authority := targetAuthority(host, r.port)
	var nUp, nDown int64
	defer func() { p.addBytes(idx, nUp, nDown) }()
	n, err := io.WriteString(up, upstreamHead(r, host))
	nUp += int64(n)
	if err != nil {
		writeText(c, 502, "safeexec: "+err.Error(), true)
		return false
	}

	bodyDone := make(chan error, 1)
	var bodyN int64
	if hasBody {
		go func() {
			var err error
			if r.framing == chunkedBody {
				bodyN, err = copyChunked(up, br)
			} else {
				bodyN, err = io.CopyN(up, br, r.length)
			}
			bodyDone <- err
		}()
	} else {
		bodyDone <- nil
	}
	// finishBody waits for the request body; false when the connection
	// cannot continue (body broken, or never sent).
	finishBody := func(final bool) bool {
		if final && r.expect {
			select {
			case err := <-bodyDone:
				nUp += bodyN
				return err == nil
			case <-time.After(100 * time.Millisecond):
				// The client waits for 100 Continue that will
				// not come; its body is never read.
				c.Close()
				up.Close()
				<-bodyDone
				nUp += bodyN
				return false
			}
		}
		err := <-bodyDone
		nUp += bodyN
		return err == nil
	}

	ubr := bufio.NewReaderSize(up, 16<<10)
	for {
		lines, err := readHead(ubr)
		if err != nil {
			up.Close()
			finishBody(false)
			if nDown == 0 {
				writeText(c, 502, "safeexec: bad response from "+authority+": "+err.Error(), true)
			}
			return false
		}
		status, hs, ok := parseStatus(lines)
		if !ok {
			up.Close()
			finishBody(false)
			if nDown == 0 {
				writeText(c, 502, "safeexec: malformed response from "+authority, true)
			}
			return false
		}
		if status == 101 {
			if r.upgrade == "" {
				up.Close()
				finishBody(false)
				return false
			}
			head := strings.Join(lines, "\r\n") + "\r\n\r\n"
			n, err := io.WriteString(c, head)
			nDown += int64(n)
			if err != nil || !finishBody(true) {
				return false
			}
			cpre, _ := br.Peek(br.Buffered())
			upre, _ := ubr.Peek(ubr.Buffered())
			u, d := relay(c, cpre, up, upre)
			nUp += u
			nDown += d
			return false
		}
		if status < 200 {
			n, err := io.WriteString(c, strings.Join(lines, "\r\n")+"\r\n\r\n")
			nDown += int64(n)
			if err != nil {
				up.Close()
				finishBody(false)
				return false
			}
			continue
		}
		fr, length, _ := bodyFraming(hs, false)
		if r.method == "HEAD" || status == 204 || status == 304 {
			fr = noBody
		}
		// The upstream connection is ours and ends here; whether the
		// client's continues depends only on the client and on the
		// response having a known length.
		keep := r.keepAlive && fr != closeBody
		if fr == chunkedBody {
			// Chunked wins over a Content-Length sent with it; the
			// client must not see the length and read otherwise.
			hs = withoutHeader(hs, "Content-Length")
		}
		var hb strings.Builder
		hb.WriteString(lines[0] + "\r\n")
		writeEndToEnd(&hb, hs, false)
		if !keep {
			hb.WriteString("Connection: close\r\n")
		}
		hb.WriteString("\r\n")
		n, err := io.WriteString(c, hb.String())
		nDown += int64(n)
		if err != nil {
			up.Close()
			finishBody(false)
			return false
		}
		var m int64
		switch fr {
		case lengthBody:
			m, err = io.CopyN(c, ubr, length)
		case chunkedBody:
			m, err = copyChunked(c, ubr)
		case closeBody:
			m, err = io.Copy(c, ubr)
		}
		nDown += m
		up.Close()
		if !finishBody(true) || err != nil {
			return false
		}
		return keep
	}
}

// targetAuthority is the Host header value for a canonical host and port.
func targetAuthority(host string, port int) string {
	if port == 80 {
		if strings.IndexByte(host, ':') >= 0 {
			return "[" + host + "]"
		}
		return host
	}
	return hostPort(host, port)
}

// upstreamHead is the request head sent to the target: origin-form, the
// Host header rewritten from the decided target (so the origin never sees
// a name the proxy did not decide on), hop-by-hop headers removed, and the
// upstream connection closed after the response unless upgraded.
func upstreamHead(r *request, host string) string {
	var b strings.Builder
	b.WriteString(r.method + " " + r.path + " " + r.proto + "\r\nHost: " + targetAuthority(host, r.port) + "\r\n")
	writeEndToEnd(&b, r.headers, r.upgrade != "")
	if r.upgrade != "" {
		b.WriteString("Connection: Upgrade\r\nUpgrade: " + r.upgrade + "\r\n\r\n")
	} else {
		b.WriteString("Connection: close\r\n\r\n")
	}
	return b.String()
}

// hopByHop are the headers that describe one connection, not the message:
// a proxy does not pass them on (RFC 9110 section 7.6.1).
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization",
	"Proxy-Authenticate", "TE", "Upgrade", "Host"}

// writeEndToEnd writes the headers that are not hop-by-hop, and not named
// in a Connection header.
func writeEndToEnd(b *strings.Builder, hs []header, keepUpgrade bool) {
	var named []string
	for _, h := range hs {
		if strings.EqualFold(h.name, "Connection") || strings.EqualFold(h.name, "Proxy-Connection") {
			named = append(named, tokens(h.value)...)
		}
	}
next:
	for _, h := range hs {
		for _, n := range hopByHop {
			if strings.EqualFold(h.name, n) {
				continue next
			}
		}
		for _, n := range named {
			if strings.EqualFold(h.name, n) && !(keepUpgrade && n == "upgrade") {
				continue next
			}
		}
		b.WriteString(h.name + ": " + h.value + "\r\n")
	}
}

func withoutHeader(hs []header, name string) []header {
	out := hs[:0:0]
	for _, h := range hs {
		if !strings.EqualFold(h.name, name) {
			out = append(out, h)
		}
	}
	return out
}

// parseStatus parses a response head.
func parseStatus(lines []string) (int, []header, bool) {
	l := lines[0]
	if len(l) < 12 || (l[:9] != "HTTP/1.1 " && l[:9] != "HTTP/1.0 ") || len(l) > 12 && l[12] != ' ' {
		return 0, nil, false
	}
	status, err := strconv.Atoi(l[9:12])
	if err != nil || status < 100 || status > 999 {
		return 0, nil, false
	}
	hs, err := parseHeaders(lines[1:])
	if err != nil {
		return 0, nil, false
	}
	return status, hs, true
}

var statusText = map[int]string{
	400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large",
	502: "Bad Gateway", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
}

// writeText writes a short text/plain response from the proxy itself.
func writeText(w io.Writer, status int, body string, close bool) {
	body += "\n"
	h := "HTTP/1.1 " + strconv.Itoa(status) + " " + statusText[status] +
		"\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	if close {
		h += "Connection: close\r\n"
	}
	io.WriteString(w, h+"\r\n"+body)
}

// relay copies both ways between a client and a target until both
// directions end, first sending what was already read ahead from either.
// It returns the bytes sent to and received from the target.
func relay(client net.Conn, clientPre []byte, up net.Conn, upPre []byte) (nUp, nDown int64) {
	down := make(chan int64, 1)
	go func() {
		var n int64
		var err error
		if len(upPre) > 0 {
			var w int
			w, err = client.Write(upPre)
			n += int64(w)
		}
		if err == nil {
			var m int64
			m, err = io.Copy(client, up)
			n += m
		}
		if err != nil {
			client.Close()
			up.Close()
		} else {
			closeWrite(client)
		}
		down <- n
	}()
	var err error
	if len(clientPre) > 0 {
		var w int
		w, err = up.Write(clientPre)
		nUp += int64(w)
	}
	if err == nil {
		var m int64
		m, err = io.Copy(up, client)
		nUp += m
	}
	if err != nil {
		client.Close()
		up.Close()
	} else {
		closeWrite(up)
	}
	return nUp, <-down
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
