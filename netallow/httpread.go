package netallow

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// A small HTTP/1.1 message-head reader. The proxy reads heads itself rather
// than through net/http so it sees exactly what the client sent (every Host
// header, both framing headers, the raw target) and refuses what two
// parties could read differently instead of normalising it.

const (
	maxHead    = 64 << 10 // bytes in a request or response head
	maxHeaders = 256
	maxLine    = 16 << 10 // a chunk-size or trailer line
)

// httpError is a malformed or unsupported request: the client gets status
// and msg, and the connection is closed.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return strconv.Itoa(e.status) + " " + e.msg }

func badRequest(msg string) *httpError { return &httpError{400, msg} }

var errHeadTooLarge = errors.New("message head too large")

// readHead reads one message head: lines up to the empty line, without
// their line ends (CRLF or a bare LF). Leading empty lines are skipped,
// as RFC 9112 asks of servers. io.EOF means the peer closed cleanly
// before the first byte.
func readHead(br *bufio.Reader) ([]string, error) {
	var lines []string
	total := 0
	for {
		line, err := readLine(br, maxHead-total)
		if err != nil {
			if err == io.EOF && (total > 0 || len(lines) > 0) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		total += len(line) + 2
		if line == "" {
			if len(lines) == 0 {
				if total > 8 {
					return nil, badRequest("empty lines before the request")
				}
				continue
			}
			return lines, nil
		}
		if len(lines) >= maxHeaders {
			return nil, errHeadTooLarge
		}
		lines = append(lines, line)
	}
}

// readLine reads a line of at most limit bytes, ending in LF, and returns
// it without CRLF or LF. A CR anywhere else in the line is an error.
func readLine(br *bufio.Reader, limit int) (string, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > limit {
			return "", errHeadTooLarge
		}
		if err == bufio.ErrBufferFull {
			buf = append(buf, frag...)
			continue
		}
		if err != nil {
			if err == io.EOF && len(buf)+len(frag) > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		var line []byte
		if buf == nil {
			line = frag
		} else {
			line = append(buf, frag...)
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		for _, c := range line {
			if c == '\r' || c == 0 {
				return "", badRequest("control character in a header line")
			}
		}
		return string(line), nil
	}
}

type header struct{ name, value string }

// parseHeaders checks and splits header lines. Obsolete line folding,
// spaces before the colon and control characters are refused: each is a
// known way to make two HTTP parsers disagree.
func parseHeaders(lines []string) ([]header, error) {
	hs := make([]header, 0, len(lines))
	for _, l := range lines {
		if l[0] == ' ' || l[0] == '\t' {
			return nil, badRequest("folded header line")
		}
		i := strings.IndexByte(l, ':')
		if i <= 0 || !isToken(l[:i]) {
			return nil, badRequest("malformed header line")
		}
		v := strings.Trim(l[i+1:], " \t")
		for j := 0; j < len(v); j++ {
			if c := v[j]; c < 0x20 && c != '\t' || c == 0x7f {
				return nil, badRequest("control character in header " + l[:i])
			}
		}
		hs = append(hs, header{l[:i], v})
	}
	return hs, nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// tokens splits a comma-separated header value into lower-case tokens.
func tokens(v string) []string {
	var out []string
	for t := range strings.SplitSeq(v, ",") {
		if t = strings.ToLower(strings.Trim(t, " \t")); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// framing is how a message body is delimited.
type framing int

const (
	noBody framing = iota
	lengthBody
	chunkedBody
	closeBody // until the connection closes (responses only)
)

// bodyFraming reads Content-Length and Transfer-Encoding. For requests
// anything ambiguous is an error (both headers, differing lengths, codings
// other than chunked); for responses it falls back to reading until close.
func bodyFraming(hs []header, request bool) (framing, int64, error) {
	var te []string
	cl := int64(-1)
	for _, h := range hs {
		switch {
		case strings.EqualFold(h.name, "Transfer-Encoding"):
			te = append(te, tokens(h.value)...)
			if len(tokens(h.value)) == 0 {
				te = append(te, "")
			}
		case strings.EqualFold(h.name, "Content-Length"):
			n, ok := parseLength(h.value)
			if !ok || cl >= 0 && n != cl {
				if request {
					return 0, 0, badRequest("invalid or conflicting Content-Length")
				}
				return closeBody, 0, nil
			}
			cl = n
		}
	}
	if te != nil {
		if request && (cl >= 0 || len(te) != 1 || te[0] != "chunked") {
			return 0, 0, badRequest("unsupported Transfer-Encoding (only chunked, without Content-Length)")
		}
		if te[len(te)-1] == "chunked" {
			return chunkedBody, 0, nil
		}
		return closeBody, 0, nil
	}
	if cl > 0 {
		return lengthBody, cl, nil
	}
	if cl == 0 || request {
		return noBody, 0, nil
	}
	return closeBody, 0, nil
}

func parseLength(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, true
}

// copyChunked copies one chunked body from src to dst, checking its
// syntax as it goes so the end of the body is known exactly.
func copyChunked(dst io.Writer, src *bufio.Reader) (int64, error) {
	var total int64
	write := func(s string) error {
		n, err := io.WriteString(dst, s)
		total += int64(n)
		return err
	}
	for {
		line, err := readLine(src, maxLine)
		if err != nil {
			return total, err
		}
		size, ok := chunkSize(line)
		if !ok {
			return total, badRequest("malformed chunk size")
		}
		if err := write(line + "\r\n"); err != nil {
			return total, err
		}
		if size == 0 {
			for {
				t, err := readLine(src, maxLine)
				if err != nil {
					return total, err
				}
				if err := write(t + "\r\n"); err != nil {
					return total, err
				}
				if t == "" {
					return total, nil
				}
			}
		}
		n, err := io.CopyN(dst, src, size)
		total += n
		if err != nil {
			return total, err
		}
		end, err := readLine(src, 2)
		if err != nil {
			return total, err
		}
		if end != "" {
			return total, badRequest("chunk longer than its size")
		}
		if err := write("\r\n"); err != nil {
			return total, err
		}
	}
}

// chunkSize parses "1a2b[;ext]".
func chunkSize(line string) (int64, bool) {
	i := 0
	var n int64
	for ; i < len(line) && isHex(line[i]); i++ {
		if i >= 15 {
			return 0, false
		}
		c := line[i]
		var d byte
		switch {
		case c <= '9':
			d = c - '0'
		case c >= 'a':
			d = c - 'a' + 10
		default:
			d = c - 'A' + 10
		}
		n = n<<4 | int64(d)
	}
	if i == 0 {
		return 0, false
	}
	rest := strings.TrimLeft(line[i:], " \t")
	if rest != "" && rest[0] != ';' {
		return 0, false
	}
	return n, true
}
