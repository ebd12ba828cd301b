package sandbox

// The macOS seatbelt backend, portable part: the sandbox-exec profile a
// Policy turns into, and a checker for it. seatbelt_darwin.go runs
// `sandbox-exec -p <profile> -D KEY=VALUE… -- CMD…`.
//
// Every path reaches the profile as a parameter, (param "ROOT_0"), never as
// text inside it, so no path can change the profile's meaning. Exceptions
// are written with require-all/require-not inside the allow rule itself,
// and the denials are repeated as deny rules after the allows; the profile
// means the same whichever way rule precedence is read.
//
// Limits of the seatbelt backend (what it does not do):
//   - It is built and checked on Linux (golden files, seatbeltLint) and
//     vetted for darwin, but its tests cannot run here: behaviour on a
//     real Mac (which Mach services a tool needs, how rename is checked)
//     is not verified by this repository's CI.
//   - Network: outbound TCP only to the proxy's loopback ports; no DNS
//     (the mDNSResponder socket is not allowed) and no other unix socket.
//   - Protected paths are denied by path: a protected path that does not
//     exist yet cannot be created, and the ancestors of protected paths
//     inside a root (".git") cannot be unlinked or renamed away, so a
//     rebuilt ".git/hooks" cannot be swapped in.
//   - Reads: in compat and permissive mode everything but the credential
//     paths can be read (their names can be listed; metadata is allowed
//     everywhere so that realpath works). The keychain is not reachable
//     (no securityd service), nor the pasteboard or Launch Services.
//   - Processes: the command and its children carry the sandbox; signals
//     and process inspection are limited to the same sandbox.

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// seatbeltHost is what the profile needs to know about the machine.
type seatbeltHost struct {
	// TmpDir is the run's private temporary directory (the command's
	// $TMPDIR), writable in every mode.
	TmpDir string
}

// seatbeltSystemRead is what strict mode may read and execute: the system,
// the developer tools, Homebrew and MacPorts.
var seatbeltSystemRead = []string{
	"/System", "/usr", "/bin", "/sbin", "/opt", "/private/etc",
	"/Library/Developer", "/Applications/Xcode.app", "/Library/Apple",
	"/private/var/db/timezone", "/private/var/select", "/Library/Preferences",
}

// seatbeltSystemExec is where strict mode may execute from.
var seatbeltSystemExec = []string{
	"/System", "/usr", "/bin", "/sbin", "/opt", "/Library/Developer", "/Applications/Xcode.app", "/Library/Apple",
}

// seatbeltDevices may be read and written (terminals and the null devices).
var seatbeltDevices = []string{
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/dtracehelper",
}

// seatbeltMachServices are the services common tools need: TLS trust
// evaluation (Go's crypto/x509 asks trustd), user and group lookups, DNS
// and proxy configuration, logging, notifications, the per-user temporary
// directory, preference reads. Deliberately absent: securityd (the
// keychain), the pasteboard, Launch Services (it opens applications
// outside the sandbox).
var seatbeltMachServices = []string{
	"com.apple.trustd.agent",
	"com.apple.trustd",
	"com.apple.ocspd",
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership",
	"com.apple.SystemConfiguration.DNSConfiguration",
	"com.apple.SystemConfiguration.configd",
	"com.apple.system.logger",
	"com.apple.logd",
	"com.apple.system.notification_center",
	"com.apple.bsd.dirhelper",
	"com.apple.cfprefsd.daemon",
	"com.apple.cfprefsd.agent",
	"com.apple.diagnosticd",
}

// seatbeltReal rewrites the top-level links of macOS (/tmp, /var, /etc
// point into /private): the sandbox matches real paths.
func seatbeltReal(p string) string {
	p = path.Clean(p)
	for _, l := range []string{"/tmp", "/var", "/etc"} {
		if p == l || strings.HasPrefix(p, l+"/") {
			return "/private" + p
		}
	}
	return p
}

// seatbeltProfile returns the profile and its parameters for p.
func seatbeltProfile(p *Policy, h seatbeltHost) (string, map[string]string, error) {
	if p == nil {
		return "", nil, errors.New("seatbelt: no policy")
	}
	mode := p.Mode
	switch mode {
	case "":
		mode = Compat
	case Strict, Compat, Permissive:
	default:
		return "", nil, fmt.Errorf("seatbelt: unknown mode %q (want strict, compat or permissive)", p.Mode)
	}
	params := map[string]string{}
	param := func(prefix string, i int, value string) string {
		k := fmt.Sprintf("%s_%d", prefix, i)
		params[k] = value
		return fmt.Sprintf("(param %q)", k)
	}
	abs := func(what, p string) (string, error) {
		if !path.IsAbs(p) || strings.ContainsRune(p, 0) {
			return "", fmt.Errorf("seatbelt: %s %q is not an absolute path", what, p)
		}
		return seatbeltReal(p), nil
	}

	roots := p.WritableRoots
	if mode == Strict && len(roots) > 1 {
		roots = roots[:1]
	}
	var rootExprs, protectExprs, ancestorExprs, denyExprs []string
	var rootPaths []string
	for i, r := range roots {
		r, err := abs("writable root", r)
		if err != nil {
			return "", nil, err
		}
		rootPaths = append(rootPaths, r)
		rootExprs = append(rootExprs, param("ROOT", i, r))
	}
	var cacheExpr string
	if p.CacheDir != "" {
		c, err := abs("cache directory", p.CacheDir)
		if err != nil {
			return "", nil, err
		}
		params["CACHE"] = c
		cacheExpr = `(param "CACHE")`
	}
	// Protected paths: relative entries under every root, absolute ones
	// as they are; their ancestors inside a root may not be unlinked.
	var protected, ancestors []string
	for _, e := range p.DenyWrite {
		if path.IsAbs(e) {
			a, err := abs("protected path", e)
			if err != nil {
				return "", nil, err
			}
			protected = appendUnique(protected, a)
			for _, r := range rootPaths {
				ancestors = appendAncestors(ancestors, r, a)
			}
			continue
		}
		rel := path.Clean(e)
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsRune(rel, 0) {
			return "", nil, fmt.Errorf("seatbelt: protected path %q leaves the writable root", e)
		}
		for _, r := range rootPaths {
			a := path.Join(r, rel)
			protected = appendUnique(protected, a)
			ancestors = appendAncestors(ancestors, r, a)
		}
	}
	for i, a := range protected {
		protectExprs = append(protectExprs, param("PROTECT", i, a))
	}
	for i, a := range ancestors {
		ancestorExprs = append(ancestorExprs, param("KEEP", i, a))
	}
	for i, d := range p.DenyRead {
		a, err := abs("denied path", d)
		if err != nil {
			return "", nil, err
		}
		denyExprs = append(denyExprs, param("DENY_READ", i, a))
	}
	var ports []int
	if p.Network.Enabled {
		for _, port := range []int{p.Network.ProxyHTTPPort, p.Network.ProxySOCKSPort} {
			if port == 0 {
				continue
			}
			if port < 1 || port > 65535 {
				return "", nil, fmt.Errorf("seatbelt: proxy port %d out of range", port)
			}
			ports = append(ports, port)
		}
		if len(ports) == 0 {
			return "", nil, errors.New("seatbelt: network enabled but the policy names no proxy port")
		}
	}

	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	lines := func(indent string, items []string) string {
		return indent + strings.Join(items, "\n"+indent)
	}
	subpaths := func(exprs []string) []string {
		out := make([]string, len(exprs))
		for i, e := range exprs {
			out[i] = "(subpath " + e + ")"
		}
		return out
	}
	literals := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = "(literal " + strconv.Quote(p) + ")"
		}
		return out
	}
	notAny := func(exprs []string) string {
		return "(require-not (require-any\n" + lines("      ", subpaths(exprs)) + "))"
	}

	w("(version 1)")
	w("; safeexec %s profile: deny by default.", mode)
	w("(deny default)")
	w("")
	w("; Processes: the command and its children, nothing outside the sandbox.")
	w("(allow process-fork)")
	if mode == Strict {
		execFrom := subpaths(quoteAll(seatbeltSystemExec))
		execFrom = append(execFrom, subpaths(rootExprs)...)
		w("(allow process-exec\n%s)", lines("  ", execFrom))
	} else {
		w("(allow process-exec)")
	}
	w("(allow process-info* (target same-sandbox))")
	w("(allow signal (target same-sandbox))")
	w("(allow sysctl-read)")
	w("(allow ipc-posix-sem)")
	if mode != Strict {
		w("(allow ipc-posix-shm)")
	}
	w("(allow pseudo-tty)")
	w("")
	w("; Mach services common tools need.")
	w("(allow mach-lookup\n%s)", lines("  ", globalNames(seatbeltMachServices)))
	w("(allow user-preference-read)")
	w("")
	w("; Reads. Metadata everywhere (realpath), contents as the mode says.")
	w("(allow file-read-metadata)")
	if mode == Strict {
		read := append([]string{`(literal "/")`}, subpaths(quoteAll(seatbeltSystemRead))...)
		read = append(read, subpaths(rootExprs)...)
		if cacheExpr != "" {
			read = append(read, "(subpath "+cacheExpr+")")
		}
		if h.TmpDir != "" {
			read = append(read, `(subpath (param "TMPDIR"))`)
		}
		if len(denyExprs) > 0 {
			w("(allow file-read*\n  (require-all\n    (require-any\n%s)\n    %s))", lines("      ", read), notAny(denyExprs))
		} else {
			w("(allow file-read*\n%s)", lines("  ", read))
		}
	} else {
		// /dev is left to the device rule below: a readable disk device
		// would bypass every other rule.
		w("(allow file-read*\n  (require-all\n    (subpath \"/\")\n    %s))", notAny(append([]string{`"/dev"`}, denyExprs...)))
	}
	w("")
	w("; Devices: terminals and the null devices.")
	devs := append(literals(seatbeltDevices), `(regex #"^/dev/ttys[0-9]+$")`, `(regex #"^/dev/fd/[0-9]+$")`)
	w("(allow file-read* file-write-data file-ioctl\n%s)", lines("  ", devs))
	w("")
	w("; Writes: the writable roots, the cache and the private temporary")
	w("; directory, minus the protected paths.")
	writable := subpaths(rootExprs)
	if cacheExpr != "" {
		writable = append(writable, "(subpath "+cacheExpr+")")
	}
	if h.TmpDir != "" {
		t, err := abs("temporary directory", h.TmpDir)
		if err != nil {
			return "", nil, err
		}
		params["TMPDIR"] = t
		writable = append(writable, `(subpath (param "TMPDIR"))`)
	}
	if len(writable) > 0 {
		if len(protectExprs) > 0 {
			w("(allow file-write*\n  (require-all\n    (require-any\n%s)\n    %s))", lines("      ", writable), notAny(protectExprs))
		} else {
			w("(allow file-write*\n%s)", lines("  ", writable))
		}
	}
	if len(protectExprs) > 0 {
		w("(deny file-write*\n%s)", lines("  ", subpaths(protectExprs)))
	}
	if len(ancestorExprs) > 0 {
		w("; Their ancestors stay where they are (no \"mv .git .g\").")
		lits := make([]string, len(ancestorExprs))
		for i, e := range ancestorExprs {
			lits[i] = "(literal " + e + ")"
		}
		w("(deny file-write-unlink\n%s)", lines("  ", lits))
	}
	if len(denyExprs) > 0 {
		w("")
		w("; Credential paths: unreadable, unwritable.")
		w("(deny file-read* file-write*\n%s)", lines("  ", subpaths(denyExprs)))
	}
	w("")
	if len(ports) == 0 {
		w("; Network: none.")
	} else {
		w("; Network: the allowlist proxy on loopback, nothing else.")
		var remotes []string
		for _, port := range ports {
			remotes = append(remotes, fmt.Sprintf("(remote tcp \"localhost:%d\")", port))
		}
		w("(allow network-outbound\n%s)", lines("  ", remotes))
	}
	return b.String(), params, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func globalNames(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "(global-name " + strconv.Quote(s) + ")"
	}
	return out
}

func appendUnique(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

// appendAncestors adds the directories strictly between root and p.
func appendAncestors(ss []string, root, p string) []string {
	if !strings.HasPrefix(p, root+"/") {
		return ss
	}
	for d := path.Dir(p); d != root && strings.HasPrefix(d, root+"/"); d = path.Dir(d) {
		ss = appendUnique(ss, d)
	}
	return ss
}

// seatbeltParamArgs renders the parameters as sandbox-exec arguments,
// sorted so the argv is deterministic.
func seatbeltParamArgs(params map[string]string) []string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var args []string
	for _, k := range keys {
		args = append(args, "-D", k+"="+params[k])
	}
	return args
}
