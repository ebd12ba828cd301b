package sandbox

// A private temporary directory for the backends that cannot mount one
// (Landlock, seatbelt, Windows), so that "$TMPDIR" in allow_write means
// what it means under bwrap: a directory of the run's own, not the host's
// shared /tmp. A writable root naming a host temporary directory is
// replaced by a fresh 0700 directory, the command's TMPDIR (TMP, TEMP,
// TEMPDIR) points at it, and it is removed after the run. Agent socket
// variables (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS…) naming a socket
// outside the writable roots are dropped, as bwrap drops them.
//
// The run directories live in one per-user directory, named after the pid
// of the safeexec that made them; each new run removes those whose
// safeexec is gone (killed before it could clean up).

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tmpBase returns the per-user directory for run directories, and whether
// it is ours to sweep. A directory someone else planted at that name (not
// ours, not private, a link) is not used: the run directory then goes
// straight into the temporary directory, unswept.
func tmpBase(parent string) (string, bool) {
	name := "safeexec-tmp"
	if uid := os.Getuid(); uid >= 0 {
		name += "-" + strconv.Itoa(uid)
	}
	base := filepath.Join(parent, name)
	os.Mkdir(base, 0o700)
	fi, err := os.Lstat(base)
	if err != nil || !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 || !ownedPrivate(fi) {
		return parent, false
	}
	return base, true
}

// sweepTmp removes run directories left by a safeexec that no longer runs.
func sweepTmp(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		pidStr, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || pidAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(base, e.Name()))
	}
}

// privateTmp is one run's temporary directory.
type privateTmp struct {
	Dir   string
	keep  bool     // the project's own directory: not removed after the run
	Roots []string // the writable roots, host temporary directories left out
	Env   []string // the command's environment, pointed at Dir
}

// isHostTemp reports whether root is one of the host's shared temporary
// directories (or, from env, the user's own $TMPDIR).
func isHostTemp(root string, hostTemps []string) bool {
	for _, t := range hostTemps {
		if t != "" && filepath.Clean(root) == filepath.Clean(t) {
			return true
		}
	}
	return false
}

// newPrivateTmp makes the run's temporary directory under base (resolved,
// so that rules name the real directory) and rewrites roots and env.
// hostTemps are the directories a root may name to mean "$TMPDIR".
func newPrivateTmp(parent string, roots, env, hostTemps []string) (*privateTmp, error) {
	base, ours := tmpBase(parent)
	prefix := fmt.Sprintf("%d-", os.Getpid())
	if ours {
		sweepTmp(base)
	} else {
		prefix = "safeexec-tmp-" + prefix
	}
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	pt := &privateTmp{Dir: dir}
	pt.rewrite(roots, env, hostTemps)
	return pt, nil
}

// runTmp returns the command's temporary directory: the project's own
// persistent one when dir is set (Policy.TempDir; it stays after the
// run), else a new private one under parent.
func runTmp(dir, parent string, roots, env, hostTemps []string) (*privateTmp, error) {
	if dir == "" {
		return newPrivateTmp(parent, roots, env, hostTemps)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	pt := &privateTmp{Dir: real, keep: true}
	pt.rewrite(roots, env, hostTemps)
	return pt, nil
}

// rewrite leaves the host's temporary directories out of roots and
// points the environment at the run's directory.
func (pt *privateTmp) rewrite(roots, env, hostTemps []string) {
	dir := pt.Dir
	for _, r := range roots {
		if !isHostTemp(r, hostTemps) {
			pt.Roots = append(pt.Roots, r)
		}
	}
	keep := append(append([]string(nil), pt.Roots...), dir)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "TMPDIR", "TMP", "TEMP", "TEMPDIR":
			continue
		}
		if bwIsAgentVar(k) && !bwSocketInRoots(filepath.ToSlash(v), toSlashAll(keep)) {
			continue
		}
		pt.Env = append(pt.Env, kv)
	}
	pt.Env = append(pt.Env, "TMPDIR="+dir, "TMP="+dir, "TEMP="+dir)
}

func toSlashAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = filepath.ToSlash(p)
	}
	return out
}

// remove deletes the directory and what the command left in it.
func (pt *privateTmp) remove() {
	if pt != nil && pt.Dir != "" && !pt.keep {
		os.RemoveAll(pt.Dir)
	}
}
