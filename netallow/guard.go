package netallow

import "net/netip"

// addrClass names the kind of an address the proxy does not connect to
// unless that address is itself allow-listed, or "" for an ordinary public
// address. These are the targets of DNS rebinding and of an allowed name
// pointed at host services or cloud metadata endpoints.
func addrClass(a netip.Addr) string {
	a = a.Unmap()
	if !a.IsValid() {
		return "invalid"
	}
	if a.Is4() {
		return class4(a.As4())
	}
	b := a.As16()
	switch {
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsMulticast():
		return "multicast"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0:
		return "site-local"
	case b[0]&0xfe == 0xfc:
		return "private"
	case isZero(b[:12]):
		// IPv4-compatible (::a.b.c.d), deprecated and never a real target.
		return "reserved"
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b:
		// NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48): the
		// embedded IPv4 address is what is reached.
		if c := class4([4]byte{b[12], b[13], b[14], b[15]}); c != "" {
			return c + " (via NAT64)"
		}
	case b[0] == 0x20 && b[1] == 0x02:
		// 6to4: 2002:AABB:CCDD::/48 carries an IPv4 address.
		if c := class4([4]byte{b[2], b[3], b[4], b[5]}); c != "" {
			return c + " (via 6to4)"
		}
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00:
		// Teredo carries the server's IPv4 address in bytes 4..7 and
		// the client's, inverted, in 12..15; both are checked.
		if c := class4([4]byte{b[4], b[5], b[6], b[7]}); c != "" {
			return c + " (via Teredo)"
		}
		if c := class4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}); c != "" {
			return c + " (via Teredo)"
		}
	}
	return ""
}

func class4(v [4]byte) string {
	switch {
	case v[0] == 0:
		// 0.0.0.0/8: on Linux a connect to 0.0.0.0 reaches the host itself.
		return "unspecified"
	case v[0] == 127:
		return "loopback"
	case v[0] == 10,
		v[0] == 172 && v[1]&0xf0 == 16,
		v[0] == 192 && v[1] == 168:
		return "private"
	case v[0] == 100 && v[1]&0xc0 == 64:
		return "shared (carrier-grade NAT)"
	case v[0] == 169 && v[1] == 254:
		return "link-local"
	case v[0] == 192 && v[1] == 0 && v[2] == 0:
		// 192.0.0.0/24 holds protocol assignments, among them the
		// 192.0.0.192 metadata address some clouds use.
		return "reserved"
	case v[0] == 198 && v[1]&0xfe == 18:
		return "reserved (benchmarking)"
	case v[0] >= 224 && v[0] < 240:
		return "multicast"
	case v[0] >= 240:
		return "reserved"
	}
	return ""
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
