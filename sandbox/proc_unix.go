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

func noneSysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

func killGroup(p *os.Process) error { return p.Kill() }
