//go:build windows

package sandbox

// The Windows backend: Start re-executes safeexec as the built-in helper
// (`safeexec __winhelper run … --stdio inherit --answer-file F -- CMD…`,
// helper_windows.go) inside a kill-on-close job of its own, so that the
// helper, and with it the command's job, ends when safeexec ends.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"
)

func init() {
	windowsDetect = detectWindows
}

// Windows returns the Windows backend (the built-in helper).
func Windows() Backend { return windowsBackend{} }

func detectWindows() (Backend, Report, error) {
	r := Report{
		Backend: "windows",
		Level:   "partial",
		Reason:  "built-in helper: restricted token, journaled ACLs on the writable roots, job object, desktop of its own",
		Checks: []Check{
			{Name: "writes", OK: true, Detail: "write-restricted token: writes only where the run's SIDs are granted (strict: the first writable root; compat: every root, %APPDATA% and %LOCALAPPDATA%), plus its private %TEMP% and the tool cache"},
			{Name: "protected paths", OK: true, Detail: "deny ACEs on the protected paths, the credential paths and the places the host runs code from (Startup folder, PowerShell profiles, per-user programs) below the granted roots; their parent directories cannot be renamed; what is created where none existed is removed after the run"},
			{Name: "acl journal", OK: true, Detail: "every ACL change is journaled before it is applied and undone after the run; a killed run's changes are undone at the next start"},
			{Name: "processes", OK: true, Detail: "kill-on-close job object: nothing outlives the run; the command gets a desktop of its own"},
			{Name: "credential reads", OK: false, Detail: "not enforced: restricting SIDs are checked for writes only, so credential paths stay readable; their deny ACEs stop writes, and the classifier alone refuses commands that read them", Fix: "keep credentials out of reach of the account, or use WSL2 with bubblewrap"},
			{Name: "network", OK: false, Detail: "advisory: the proxy variables are set, but without administrator rights sockets are not filtered — a command can connect directly, also with --no-network", Fix: "use WSL2 with bubblewrap for network confinement"},
		},
	}
	if _, err := os.Executable(); err != nil {
		err = fmt.Errorf("windows: cannot locate safeexec for the helper: %v: %w", err, ErrUnavailable)
		r.Reason = err.Error()
		return nil, r, err
	}
	return windowsBackend{}, r, nil
}

type windowsBackend struct{}

func (windowsBackend) Name() string { return "windows" }

func (windowsBackend) Start(p *Policy, c *Command) (Process, error) {
	if p == nil || c == nil || len(c.Argv) == 0 {
		return nil, errors.New("sandbox windows: empty command")
	}
	mode := p.Mode
	if mode == "" {
		mode = Compat
	}
	self := p.SafeexecPath
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox windows: find the safeexec binary: %w", err)
		}
	}
	var roots []string
	for _, r := range p.WritableRoots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("sandbox windows: writable root %q is not absolute", r)
		}
		if _, err := os.Stat(r); err == nil {
			roots = append(roots, r)
		}
	}
	hostTemps := []string{os.TempDir()}
	for _, k := range []string{"TEMP", "TMP", "TMPDIR"} {
		if v, ok := envValue(c.Env, k); ok && v != "" {
			hostTemps = append(hostTemps, v)
		}
	}
	tmp, err := runTmp(p.TempDir, os.TempDir(), roots, c.Env, hostTemps)
	if err != nil {
		return nil, fmt.Errorf("sandbox windows: private temporary directory: %w", err)
	}
	roots = tmp.Roots
	q := *p
	q.WritableRoots = roots
	dir, err := os.MkdirTemp("", "safeexec-helper-")
	if err != nil {
		tmp.remove()
		return nil, fmt.Errorf("sandbox windows: answer directory: %w", err)
	}
	req := &helperRequest{
		Mode:       mode,
		Cwd:        p.Cwd,
		Policy:     helperPolicyOf(&q),
		Argv:       c.Argv,
		Inherit:    true,
		AnswerFile: filepath.Join(dir, "answer.json"),
	}
	req.Policy.TempDir = tmp.Dir
	req.Policy.JournalDir = testJournalDir
	args, err := req.args()
	if err != nil {
		tmp.remove()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox windows: %w", err)
	}
	// The guard takes back, after the run, what the command created at
	// protected paths that did not exist when it started (the helper's
	// deny ACEs cover those that did).
	known := knownFolders()
	guardRoots := winGrantedRoots(mode, roots, known)
	guard, err := snapshotProtected(guardRoots, winGuardPaths(p, known))
	if err != nil {
		tmp.remove()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox windows: snapshot protected paths: %w", err)
	}
	job, err := newJob(Permissive, helperLimits{})
	if err != nil {
		guard.close()
		tmp.remove()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox windows: %w", err)
	}
	cmd := &exec.Cmd{
		Path:   self,
		Args:   append([]string{self, winHelperArg}, args...),
		Env:    tmp.Env,
		Dir:    p.Cwd,
		Stdin:  c.Stdin,
		Stdout: c.Stdout,
		Stderr: c.Stderr,
		SysProcAttr: &syscall.SysProcAttr{
			CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
		},
	}
	cleanup := func() {
		windows.CloseHandle(job)
		guard.restore()
		tmp.remove()
		os.RemoveAll(dir)
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		return nil, fmt.Errorf("sandbox windows: start the helper: %w", err)
	}
	if err := startInJob(job, cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		cleanup()
		return nil, fmt.Errorf("sandbox windows: %w", err)
	}
	return &windowsProcess{cmd: cmd, job: job, dir: dir, answer: req.AnswerFile, guard: guard, stderr: c.Stderr, tmp: tmp}, nil
}

// winGuardPaths are the protected paths the run's guard watches: the
// policy's, and the places the host runs code from that do not exist yet
// (those that do get a deny ACE from the helper; walking them, a whole
// %LOCALAPPDATA%\Programs, would cost every run).
func winGuardPaths(p *Policy, known map[string]string) []string {
	out := append([]string(nil), p.DenyWrite...)
	for _, h := range hostRunPaths(known) {
		if _, err := os.Lstat(h); err != nil {
			out = append(out, h)
		}
	}
	return out
}

type windowsProcess struct {
	cmd    *exec.Cmd
	job    windows.Handle
	dir    string
	answer string
	guard  *protectGuard
	stderr io.Writer
	tmp    *privateTmp

	mu     sync.Mutex
	done   bool
	killed bool
}

// Signal delivers os.Kill as Kill and anything else as CTRL_BREAK to the
// helper's process group, which the command shares (the helper ignores it).
func (w *windowsProcess) Signal(sig os.Signal) error {
	if sig == os.Kill {
		return w.Kill()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return os.ErrProcessDone
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(w.cmd.Process.Pid)); err != nil {
		return fmt.Errorf("sandbox windows: signal %v: %w", sig, err)
	}
	return nil
}

// Kill ends the helper's job: the helper, and so the command's job.
func (w *windowsProcess) Kill() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.killed = true
	if err := windows.TerminateJobObject(w.job, 1); err != nil {
		return fmt.Errorf("sandbox windows: kill: %w", err)
	}
	return nil
}

func (w *windowsProcess) Wait() (Status, error) {
	werr := w.cmd.Wait()
	w.mu.Lock()
	w.done = true
	killed := w.killed
	windows.TerminateJobObject(w.job, 1)
	windows.CloseHandle(w.job)
	w.mu.Unlock()
	defer os.RemoveAll(w.dir)
	defer w.tmp.remove()
	// A helper that was killed could not undo its ACL changes.
	RecoverWindowsACL(w.stderr)
	if changed, failed := w.guard.restore(); len(changed) > 0 && w.stderr != nil {
		fmt.Fprintf(w.stderr, "safeexec: the command changed protected paths; restored: %v\n", changed)
		if len(failed) > 0 {
			fmt.Fprintf(w.stderr, "safeexec: could not restore %v: check them before running anything there\n", failed)
		}
	}
	if killed {
		return Status{ExitCode: 128 + 9, Signal: 9}, nil
	}
	b, err := os.ReadFile(w.answer)
	if err != nil {
		var ee *exec.ExitError
		if werr != nil && !errors.As(werr, &ee) {
			return Status{ExitCode: 125}, fmt.Errorf("sandbox windows: wait for the helper: %w", werr)
		}
		return Status{ExitCode: 125}, fmt.Errorf("sandbox windows: the helper gave no answer (exit status %d)", w.cmd.ProcessState.ExitCode())
	}
	a, err := decodeHelperAnswer(b)
	if err != nil {
		return Status{ExitCode: 125}, fmt.Errorf("sandbox windows: %w", err)
	}
	if a.Error != "" {
		return Status{ExitCode: 125}, fmt.Errorf("sandbox windows: %s", a.Error)
	}
	if a.TimedOut {
		return Status{ExitCode: 124}, nil
	}
	return Status{ExitCode: a.ExitCode}, nil
}
