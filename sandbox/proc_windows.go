package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

func isExecutable(p string, fi fs.FileInfo) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".exe", ".com", ".bat", ".cmd":
		return true
	}
	return false
}

func noneSysProcAttr(*Command) *syscall.SysProcAttr { return nil }

func signalGroup(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

func killGroup(p *os.Process) error { return p.Kill() }
