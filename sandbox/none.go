package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// None returns the backend that runs commands directly, unconfined. It is
// only for an explicit --sandbox none: the command has every right of the
// user who runs safeexec.
func None() Backend { return noneBackend{} }

type noneBackend struct{}

func (noneBackend) Name() string { return "none" }

func (noneBackend) Start(p *Policy, c *Command) (Process, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("sandbox none: empty command")
	}
	path, code, err := lookPathEnv(c.Argv[0], c.Env, policyCwd(p))
	if runtime.GOOS == "windows" {
		// PATHEXT and the App Paths rules: let os/exec resolve it.
		path, err = exec.LookPath(c.Argv[0])
		code = 127
	}
	if err != nil {
		return &failedProcess{status: Status{ExitCode: code}}, nil
	}
	c, closeStdio := withSafeStdio(c)
	defer closeStdio()
	markInheritedCloexec()
	cmd := &exec.Cmd{
		Path:       path,
		Args:       c.Argv,
		Env:        c.Env,
		Dir:        policyCwd(p),
		Stdin:      c.Stdin,
		Stdout:     c.Stdout,
		Stderr:     c.Stderr,
		ExtraFiles: c.ExtraFiles,
	}
	cmd.SysProcAttr = noneSysProcAttr(c)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox none: start %s: %w", c.Argv[0], err)
	}
	return &noneProcess{cmd: cmd}, nil
}

func policyCwd(p *Policy) string {
	if p == nil {
		return ""
	}
	return p.Cwd
}

type noneProcess struct {
	cmd *exec.Cmd
}

func (n *noneProcess) Signal(sig os.Signal) error { return signalGroup(n.cmd.Process, sig) }

func (n *noneProcess) Kill() error { return killGroup(n.cmd.Process) }

func (n *noneProcess) Wait() (Status, error) {
	err := n.cmd.Wait()
	st := statusOf(n.cmd.ProcessState)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return st, fmt.Errorf("sandbox none: wait: %w", err)
	}
	return st, nil
}

// statusOf turns a finished process's state into a Status (128+N when
// killed by signal N).
func statusOf(ps *os.ProcessState) Status {
	if ps == nil {
		return Status{ExitCode: 125}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Status{ExitCode: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	return Status{ExitCode: ps.ExitCode()}
}

// failedProcess is a command that never started because it could not be
// found (127) or executed (126); Wait reports that status, as a shell does.
type failedProcess struct{ status Status }

func (f *failedProcess) Signal(os.Signal) error { return nil }
func (f *failedProcess) Kill() error            { return nil }
func (f *failedProcess) Wait() (Status, error)  { return f.status, nil }
