// Package netallow lets a sandboxed command reach the allow-listed network
// and nothing else.
//
// A [Matcher] holds the allowed and denied entries ([ParseEntry]: exact
// hosts, "*.suffix" wildcards, IP literals, ports) and decides a host and
// port; a denied entry beats every allowed one. A [Proxy] serves an HTTP
// forward proxy (absolute-URI requests and CONNECT) and a SOCKS5 server on
// unix sockets in a private directory and, for sandboxes without their own
// network namespace, on loopback TCP ports. For each connection it decides
// the name before resolving it, resolves an allowed name itself, refuses
// addresses that lead back to the host or its networks (loopback,
// link-local with the cloud metadata endpoints, private, shared,
// unspecified, multicast, reserved) unless the address itself is listed,
// and connects to exactly the address it checked. Plain HTTP requests are
// read by the proxy's own strict HTTP/1.1 reader: each request on a
// keep-alive or pipelined connection is decided by its absolute URI, a
// Host header naming anything else is refused, ambiguous framing is
// refused, and redirects go back to the client. Every decision is reported
// ([Proxy.Decisions], merged per host and outcome, and
// [Options.OnDecision], one call each) for the audit record, and each
// distinct refusal is noted once on [Options.Log].
//
// Inside bwrap's empty network namespace the command cannot reach the
// proxy's sockets by itself. Where safeexec can make that namespace
// itself (as root), or enter the one bwrap made (without root, from a
// single-threaded fork: sandbox.Network.Listen), the proxy listens on its
// loopback directly ([Proxy.AcceptHTTP], [Proxy.AcceptSOCKS]); otherwise
// (a terminal, or a system that refuses the entry) a small bridge runs
// there first
// ([RunBridge], argv built with [BridgeArgs]; the safeexec-bridge command,
// or safeexec re-executed when that is not installed): it listens on
// 127.0.0.1, forwards to the unix sockets, sets the proxy variables
// ([ProxyEnv], [WithProxyEnv]), runs the command and returns its status.
// Allowed loopback entries with one port ([Matcher.LoopbackForwards]) are
// forwarded into the namespace ([Proxy.AcceptForward], or the bridge's
// --forward), since "localhost" there is the sandbox's own.
// There is no resolver inside: a DNS lookup fails and cannot carry data
// out.
//
// # Limits
//
//   - Only TCP through the proxy. UDP (QUIC, DNS), ICMP and raw sockets have
//     no way out of the sandbox; programs that ignore the proxy variables
//     simply get no network.
//   - The allowlist names hosts, not content. An allowed host that relays
//     (an open proxy, a CDN serving many customers behind one name, a
//     service that fetches URLs on request, a git host serving anyone's
//     repository) carries whatever the command sends it. Data can leave
//     through any allowed host; the allowlist narrows where, not what.
//   - No TLS interception: inside a CONNECT tunnel the proxy sees only the
//     target it decided on. TLS SNI and HTTP/2 :authority inside are not
//     checked; they reach only the decided address, but a shared front
//     (domain fronting on a CDN) can route them to another site behind the
//     same address.
//   - Names are decided as text: no public-suffix list (a wildcard over
//     "co.uk" is accepted), no IDNA mapping (write punycode entries).
//   - A name that resolves to a private address (an internal registry) is
//     refused unless that address is listed too; "localhost" covers
//     loopback only.
//   - The guard judges an address by its range, not by whose it is: a
//     public address of the host itself (a server whose interface carries
//     one) passes it, so an allowed name whose DNS answers the command's
//     author controls (a wildcard over a dynamic-DNS zone, *.nip.io) can
//     lead to the host's own services listening on that address.
//   - The TCP ports (Options.TCP) are on the host's loopback, where any
//     local user can connect to them and use the allowlist. The unix
//     sockets are reachable only by this user (directory mode 0700; on
//     Windows the directory's ACL decides).
//   - The bridge forwards signals to the command's process group; a
//     process that leaves the group (setsid, setpgid) receives them only
//     through the sandbox ending. The command dies with the bridge
//     (a parent-death signal on Linux), but its own children rely on the
//     sandbox's PID namespace to end.
//   - The proxy resolves names with the host's resolver: a denied name is
//     never looked up, but an allowed name is, and its DNS answers are the
//     resolver's to trust. Answers are reused for up to 30 seconds (every
//     use still passes the address guard).
//   - Plain HTTP upstream connections are not reused: each request opens
//     its own, at the cost of a TCP handshake per request (HTTPS through
//     CONNECT is unaffected).
package netallow
