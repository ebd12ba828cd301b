//go:build unix

package sandbox

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func isExecutable(p string, fi fs.FileInfo) bool {
	return fi.Mode()&0o111 != 0 && unix.Access(p, unix.X_OK) == nil
}

// noneSysProcAttr: a command given a terminal of its own gets it as its
// controlling terminal in a new session. Otherwise it stays in safeexec's
// process group and session, as a command run by a shell would.
func noneSysProcAttr(c *Command) *syscall.SysProcAttr {
	if c.Terminal {
		return &syscall.SysProcAttr{Setsid: true, Setctty: true}
	}
	return nil
}

func signalGroup(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

func killGroup(p *os.Process) error { return p.Kill() }
