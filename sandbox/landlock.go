package sandbox

// The Landlock fallback, portable part: the plan of rules a Policy turns
// into. The Linux part (landlock_linux.go) applies the plan in a child
// forked for the command (forkexec_linux.go).
//
// The plan expresses "read everything except the credential paths" with
// allow-rules only, as Landlock requires: a rule on a directory covers its
// whole subtree and cannot be narrowed, so each ancestor of a denied path
// gets no read rule of its own and each of its other children gets one,
// walking down to the denied path. Directories are listable everywhere in
// compat and permissive mode (one READ_DIR rule on /), so the names inside
// a denied directory can be listed while its files cannot be read.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// landlockSocketFilter says which socket families the child must refuse
// with seccomp, beyond the IP protocols Landlock never confines (refused
// in every mode), because the ABI cannot confine them: everything Landlock
// cannot scope, except in permissive mode, which is labelled weak.
func landlockSocketFilter(mode Mode, abi int) (noUnix, noUDP bool) {
	if mode == Permissive {
		return false, false
	}
	return abi < 9, abi < 10
}

// llRequest is what the plan is computed from.
type llRequest struct {
	Mode     Mode
	Roots    []string
	DenyRead []string
	// Always are writable in every mode: safeexec's tool cache, the
	// run's private temporary directory.
	Always []string
	// Hidden are directories granted nothing, but for the Always entries
	// inside them (safeexec's directory of every project: only this
	// project's cache and temporary directory).
	Hidden []string
	// Cwd is the working directory and Home the command's $HOME, which
	// decide whether root's home directory is masked (rootSecretsFor).
	Cwd, Home string
	// Net is the network part: enabled with the proxy's loopback ports,
	// or nothing at all.
	Net   bool
	Ports []int
}

// Landlock access rights, as the kernel numbers them (uapi/linux/landlock.h).
const (
	llExecute     = 1 << 0
	llWriteFile   = 1 << 1
	llReadFile    = 1 << 2
	llReadDir     = 1 << 3
	llRemoveDir   = 1 << 4
	llRemoveFile  = 1 << 5
	llMakeChar    = 1 << 6
	llMakeDir     = 1 << 7
	llMakeReg     = 1 << 8
	llMakeSock    = 1 << 9
	llMakeFifo    = 1 << 10
	llMakeBlock   = 1 << 11
	llMakeSym     = 1 << 12
	llRefer       = 1 << 13 // ABI 2
	llTruncate    = 1 << 14 // ABI 3
	llIoctlDev    = 1 << 15 // ABI 5
	llResolveUnix = 1 << 16 // ABI 9

	llNetBindTCP        = 1 << 0 // ABI 4
	llNetConnectTCP     = 1 << 1 // ABI 4
	llNetBindUDP        = 1 << 2 // ABI 10
	llNetConnectSendUDP = 1 << 3 // ABI 10

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1 // ABI 6
)

const (
	// llFileRights are the only rights a rule on a non-directory may carry.
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
	llRead       = llExecute | llReadFile | llReadDir
	llWrite      = llWriteFile | llRemoveDir | llRemoveFile | llMakeDir | llMakeReg |
		llMakeSock | llMakeFifo | llMakeSym | llRefer | llTruncate | llResolveUnix
	llDevice = llReadFile | llWriteFile | llTruncate | llIoctlDev
)

// Minimum ABI versions for what a policy needs.
const (
	// llABITruncate is the first ABI that controls truncation; before it a
	// file that is read-only by rule can still be truncated to zero.
	llABITruncate = 3
	// llABINet is the first ABI that controls TCP bind and connect.
	llABINet = 4
)

// llHandledFS is every filesystem right the given ABI knows.
func llHandledFS(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return 1<<13 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi <= 4:
		return 1<<15 - 1
	case abi <= 8:
		return 1<<16 - 1
	default:
		return 1<<17 - 1
	}
}

func llHandledNet(abi int) uint64 {
	switch {
	case abi < 4:
		return 0
	case abi < 10:
		return llNetBindTCP | llNetConnectTCP
	default:
		return llNetBindTCP | llNetConnectTCP | llNetBindUDP | llNetConnectSendUDP
	}
}

func llScoped(abi int) uint64 {
	if abi < 6 {
		return 0
	}
	return llScopeAbstractUnix | llScopeSignal
}

// llRule grants Access beneath Path (or on Path itself for a file). File
// is set when the walk saw a non-directory, which may only carry file
// rights.
type llRule struct {
	Path   string
	Access uint64
	File   bool
}

// llPlan is a Policy turned into Landlock rules for one ABI version.
type llPlan struct {
	ABI        int
	HandledFS  uint64
	HandledNet uint64
	Scoped     uint64
	FS         []llRule
	Ports      []uint16
}

// strictSystemDirs are what strict mode may read and execute.
var strictSystemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/usr/local",
	// Programs read their own /proc entries; Landlock keeps other
	// domains' entries out of reach (ptrace scoping).
	"/proc",
	// CPU count (glibc get_nprocs, nproc, Go's runtime).
	"/sys/devices/system/cpu",
}

// llDevices are the device files a command may open; the rest of /dev
// stays out of reach (a readable disk device would bypass every rule).
var llDevices = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", "/dev/pts",
}

// landlockModeOf maps the policy's mode, with compat as the default.
func landlockModeOf(m Mode) (Mode, error) {
	switch m {
	case "":
		return Compat, nil
	case Strict, Compat, Permissive:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want strict, compat or permissive)", m)
}

// landlockRoots returns the writable roots the mode keeps: all of them,
// or only the first in strict mode.
func landlockRoots(mode Mode, roots []string) []string {
	if mode == Strict && len(roots) > 1 {
		return roots[:1]
	}
	return roots
}

// landlockVisibleInStrict reports whether strict mode lets the command
// see dir (its working directory): a system directory, the first root,
// the cache or the private temporary directory.
func landlockVisibleInStrict(dir string, roots, always []string) bool {
	vis := append(slices.Clone(strictSystemDirs), landlockRoots(Strict, roots)...)
	vis = append(vis, always...)
	for _, v := range vis {
		if dir == v || within(dir, v) {
			return true
		}
	}
	return false
}

// landlockMinABI is the oldest ABI that can enforce a policy in the given
// mode, and why.
func landlockMinABI(mode Mode) (int, string) {
	// TCP cannot be confined before ABI 4, with the network on (only the
	// proxy ports) or off (no connection at all), and without
	// confinement of the network there is no policy to speak of.
	return llABINet, "TCP connect and bind can only be limited from Landlock ABI 4 (Linux 6.7)"
}

// planLandlock turns the request into rules for the given ABI. It reads
// the filesystem (to list the siblings of denied paths).
func planLandlock(s *llRequest, abi int, asRoot bool) (*llPlan, error) {
	mode, err := landlockModeOf(s.Mode)
	if err != nil {
		return nil, err
	}
	if need, why := landlockMinABI(mode); abi < need {
		if abi <= 0 {
			return nil, fmt.Errorf("landlock is not available in this kernel: %w", ErrUnavailable)
		}
		return nil, fmt.Errorf("landlock ABI %d is too old: %s: %w", abi, why, ErrUnavailable)
	}
	if mode != Permissive && abi < llABITruncate {
		return nil, fmt.Errorf("landlock ABI %d cannot stop truncation of read-only files: %w", abi, ErrUnavailable)
	}
	p := &llPlan{
		ABI:        abi,
		HandledFS:  llHandledFS(abi),
		HandledNet: llHandledNet(abi),
		Scoped:     llScoped(abi),
	}

	deny := expandDenied(s.DenyRead)
	if asRoot {
		dirs := append(append([]string{s.Cwd}, s.Roots...), s.Always...)
		// Only those that exist: a missing one cannot be created by a
		// command that may write only to its roots, and each costs a
		// walk up its parents in expandDenied.
		var present []string
		for _, d := range rootSecretsFor(s.Home, dirs...) {
			if _, err := os.Lstat(d); err == nil {
				present = append(present, d)
			}
		}
		deny = append(deny, expandDenied(present)...)
	}
	hidden := expandDenied(s.Hidden)
	// /dev is never granted as a whole: only llDevices below.
	readDeny := append(append(slices.Clone(deny), hidden...), "/dev")

	add := func(r llRule) {
		if r.File {
			r.Access &= llFileRights
		}
		if r.Access &= p.HandledFS; r.Access != 0 {
			p.FS = append(p.FS, r)
		}
	}
	walk := func(src string, access uint64, denied []string) {
		for _, r := range allowExcept(src, denied) {
			r.Access = access
			add(r)
		}
	}

	switch mode {
	case Strict:
		for _, d := range strictSystemDirs {
			walk(d, llRead, readDeny)
		}
	default:
		add(llRule{Path: "/", Access: llReadDir})
		walk("/", llReadFile|llExecute, readDeny)
	}
	for _, d := range llDevices {
		add(llRule{Path: d, Access: llDevice})
	}
	if mode != Strict {
		add(llRule{Path: "/dev/shm", Access: llRead | llWrite})
	}
	// The roots get one right more than the cache and the private
	// temporary directory, one the command cannot use (making block
	// devices needs CAP_MKNOD): Landlock refuses to move a directory to
	// where it would gain rights (EXDEV), so no tree made in those
	// unswept places enters a root with its old change times; a file
	// renamed or linked in gets a new one. The git sweep relies on it
	// (gitsweep_linux.go); bwrap gets the same from its separate mounts.
	// Tools fall back to copying, as across file systems.
	rootDeny := append(slices.Clone(deny), hidden...)
	for _, r := range landlockRoots(mode, s.Roots) {
		walk(r, llRead|llWrite|llMakeBlock, rootDeny)
	}
	for _, r := range s.Always {
		walk(r, llRead|llWrite, deny)
	}
	p.FS = mergeRules(p.FS)

	if s.Net {
		for _, port := range s.Ports {
			if port <= 0 || port > 65535 {
				return nil, fmt.Errorf("landlock: proxy port %d out of range", port)
			}
			p.Ports = append(p.Ports, uint16(port))
		}
		if len(p.Ports) == 0 {
			return nil, errors.New("landlock: network enabled but no proxy port given")
		}
	}
	return p, nil
}

// expandDenied cleans the denied paths and adds the target of each one that
// is a symbolic link, so that hiding a link hides what it points to.
func expandDenied(paths []string) []string {
	var out []string
	for _, d := range paths {
		if !filepath.IsAbs(d) {
			continue // a relative deny entry has no meaning outside a root
		}
		d = filepath.Clean(d)
		out = append(out, d)
		if t := resolveExisting(d); t != d {
			out = append(out, t)
		}
	}
	return out
}

// resolveExisting resolves the symbolic links of p's longest existing
// ancestor and appends the rest, so a denied path that does not exist yet
// is still denied where it would be created.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if t, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(t, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// allowExcept lists the rules that grant src's subtree minus the denied
// paths: src itself when nothing denied lies beneath it, otherwise its
// children, recursively, skipping the denied paths and symbolic links (a
// link is governed by where it points, which has its own rule or none).
// The caller fills in Access.
func allowExcept(src string, denied []string) []llRule {
	src = filepath.Clean(src)
	if t, err := filepath.EvalSymlinks(src); err == nil {
		src = t
	} else {
		return nil // missing source: nothing to grant
	}
	var out []llRule
	var visit func(p string, isDir bool)
	visit = func(p string, isDir bool) {
		below := false
		for _, d := range denied {
			if d == p || within(p, d) {
				return // p is denied or inside a denied path
			}
			if within(d, p) {
				below = true
			}
		}
		if !below {
			out = append(out, llRule{Path: p, File: !isDir})
			return
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return // unreadable: grant nothing beneath (fail closed)
		}
		for _, e := range ents {
			if e.Type()&os.ModeSymlink != 0 {
				continue
			}
			visit(filepath.Join(p, e.Name()), e.IsDir())
		}
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil
	}
	visit(src, fi.IsDir())
	return out
}

// within reports whether p is strictly beneath dir.
func within(p, dir string) bool {
	if dir == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+"/")
}

// mergeRules joins rules on the same path (their rights add up, as they
// would in the kernel) and sorts them, so a plan is deterministic.
func mergeRules(rs []llRule) []llRule {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Path < rs[j].Path })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Path == r.Path {
			out[n-1].Access |= r.Access
			out[n-1].File = out[n-1].File && r.File
			continue
		}
		out = append(out, r)
	}
	return out
}
