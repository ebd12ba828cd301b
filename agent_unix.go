//go:build unix

package safeexec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/safeexec/safeexec/sandbox"
)

// agentOutput lets a recognised agent wrapper's own output file through
// the sandbox: Claude Code's wrapper ends with pwd -P >| /tmp/claude-…-cwd
// and reads that file back to follow cd. With a private /tmp the write
// would be lost, so the one file (created empty when missing, never
// through a symlink) is made writable. Only a file directly in the
// temporary directory qualifies, and only the exact wrapper shape names
// one (risk.Verdict.WrapperOutput).
func (p *pipeline) agentOutput(sp *sandbox.Policy) {
	out := p.out.Verdict.WrapperOutput
	if out == "" || p.backend == nil || p.backend.Name() == "none" {
		return
	}
	dir := filepath.Dir(out)
	if dir != "/tmp" && dir != filepath.Clean(os.TempDir()) {
		return
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		if !errors.Is(err, fs.ErrPermission) {
			p.req.notef("agent cwd file %s: %v", out, err)
		}
		return
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	sp.WritableRoots = append(sp.WritableRoots, out)
}
