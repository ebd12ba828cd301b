package netallow

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// SOCKS5 (RFC 1928): no authentication, CONNECT only. A domain name is
// decided before anything resolves it, so a refused name never reaches a
// DNS server.

const (
	socksVersion = 5

	socksOK           = 0x00
	socksFailure      = 0x01
	socksNotAllowed   = 0x02
	socksNetUnreach   = 0x03
	socksHostUnreach  = 0x04
	socksRefused      = 0x05
	socksTTLExpired   = 0x06
	socksCmdNotSupp   = 0x07
	socksAddrNotSupp  = 0x08
	socksNoAcceptable = 0xff
)

// errSOCKS is a handshake the server has answered and ended.
var errSOCKS = errors.New("socks handshake refused")

// socksHandshake reads the greeting and the request from r, writing the
// method choice (and, for requests it cannot serve, the error reply) to w.
// It returns the target host (a name or an IP literal) and port.
func socksHandshake(r io.Reader, w io.Writer) (string, int, error) {
	var b [262]byte
	if _, err := io.ReadFull(r, b[:2]); err != nil {
		return "", 0, err
	}
	if b[0] != socksVersion {
		return "", 0, errors.New("socks: version " + strconv.Itoa(int(b[0])) + " not supported")
	}
	n := int(b[1])
	if n == 0 {
		w.Write([]byte{socksVersion, socksNoAcceptable})
		return "", 0, errSOCKS
	}
	if _, err := io.ReadFull(r, b[:n]); err != nil {
		return "", 0, err
	}
	noAuth := false
	for _, m := range b[:n] {
		noAuth = noAuth || m == 0
	}
	if !noAuth {
		w.Write([]byte{socksVersion, socksNoAcceptable})
		return "", 0, errSOCKS
	}
	if _, err := w.Write([]byte{socksVersion, 0}); err != nil {
		return "", 0, err
	}
	if _, err := io.ReadFull(r, b[:4]); err != nil {
		return "", 0, err
	}
	if b[0] != socksVersion || b[2] != 0 {
		return "", 0, errors.New("socks: malformed request")
	}
	cmd, atyp := b[1], b[3]
	var host string
	switch atyp {
	case 1:
		if _, err := io.ReadFull(r, b[:4]); err != nil {
			return "", 0, err
		}
		host = netip.AddrFrom4([4]byte(b[:4])).String()
	case 4:
		if _, err := io.ReadFull(r, b[:16]); err != nil {
			return "", 0, err
		}
		host = netip.AddrFrom16([16]byte(b[:16])).String()
	case 3:
		if _, err := io.ReadFull(r, b[:1]); err != nil {
			return "", 0, err
		}
		l := int(b[0])
		if _, err := io.ReadFull(r, b[:l]); err != nil {
			return "", 0, err
		}
		host = string(b[:l])
	default:
		socksReply(w, socksAddrNotSupp, nil)
		return "", 0, errSOCKS
	}
	if _, err := io.ReadFull(r, b[:2]); err != nil {
		return "", 0, err
	}
	port := int(b[0])<<8 | int(b[1])
	if cmd != 1 {
		// BIND and UDP ASSOCIATE would open paths the allowlist
		// cannot see into.
		socksReply(w, socksCmdNotSupp, nil)
		return "", 0, errSOCKS
	}
	return host, port, nil
}

// socksReply writes a reply with the bound address, or zeros.
func socksReply(w io.Writer, code byte, bound net.Addr) error {
	reply := []byte{socksVersion, code, 0, 1, 0, 0, 0, 0, 0, 0}
	if ta, ok := bound.(*net.TCPAddr); ok {
		ap := ta.AddrPort()
		a := ap.Addr().Unmap()
		if a.Is4() {
			v := a.As4()
			copy(reply[4:8], v[:])
			reply[8], reply[9] = byte(ap.Port()>>8), byte(ap.Port())
		} else {
			v := a.As16()
			reply = append([]byte{socksVersion, code, 0, 4}, v[:]...)
			reply = append(reply, byte(ap.Port()>>8), byte(ap.Port()))
		}
	}
	_, err := w.Write(reply)
	return err
}

// socksCode maps a connection error to a reply code.
func socksCode(err error) byte {
	var rf *refusal
	var de *net.DNSError
	switch {
	case errors.As(err, &rf):
		return socksNotAllowed
	case errors.As(err, &de):
		return socksHostUnreach
	case errors.Is(err, syscall.ECONNREFUSED):
		return socksRefused
	case errors.Is(err, syscall.ENETUNREACH):
		return socksNetUnreach
	case errors.Is(err, syscall.EHOSTUNREACH):
		return socksHostUnreach
	case isTimeout(err):
		return socksTTLExpired
	}
	return socksFailure
}

func (p *Proxy) serveSOCKS(c net.Conn) {
	c.SetDeadline(time.Now().Add(headTimeout))
	br := bufio.NewReaderSize(c, 512)
	host, port, err := socksHandshake(br, c)
	if err != nil {
		return
	}
	up, idx, err := p.connect(host, port, "socks5")
	if err != nil {
		socksReply(c, socksCode(err), nil)
		return
	}
	if !p.trackUp(up) {
		return
	}
	defer p.untrack(up)
	if socksReply(c, socksOK, up.LocalAddr()) != nil {
		return
	}
	c.SetDeadline(time.Time{})
	pre, _ := br.Peek(br.Buffered())
	nUp, nDown := relay(c, pre, up, nil)
	p.addBytes(idx, nUp, nDown)
}
