//go:build darwin

package sandbox

// The seatbelt backend on macOS: sandbox-exec with the profile of
// seatbelt.go, checked by seatbeltLint before every run. The command runs
// in its own session; Signal reaches its process group, and Wait kills
// what is left of that group. A process that starts its own session
// escapes that cleanup (there is no /proc to sweep on macOS).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

const sandboxExec = "/usr/bin/sandbox-exec"

func init() {
	seatbeltDetect = detectSeatbelt
}

// Seatbelt returns the macOS backend.
func Seatbelt() Backend { return seatbeltBackend{} }

func detectSeatbelt() (Backend, Report, error) {
	r := Report{Backend: "seatbelt"}
	if _, err := os.Stat(sandboxExec); err != nil {
		err := fmt.Errorf("seatbelt: %s not found: %w", sandboxExec, ErrUnavailable)
		r.Reason = err.Error()
		r.Checks = []Check{{Name: "sandbox-exec", OK: false, Detail: err.Error(), Fix: "restore " + sandboxExec + " (part of macOS)"}}
		return nil, r, err
	}
	r.Reason = "sandbox-exec with a generated deny-by-default profile"
	r.Checks = []Check{
		{Name: "sandbox-exec", OK: true, Detail: sandboxExec},
		{Name: "network", OK: true, Detail: "outbound TCP only to the proxy's loopback ports; no DNS"},
		{Name: "protected paths", OK: true, Detail: "denied by path, also before they exist"},
		{Name: "namespaces", OK: false, Detail: "no pid namespace: host processes are visible (not signalable)", Fix: "none on macOS"},
	}
	return seatbeltBackend{}, r, nil
}

type seatbeltBackend struct{}

func (seatbeltBackend) Name() string { return "seatbelt" }

func (seatbeltBackend) Start(p *Policy, c *Command) (Process, error) {
	if p == nil || c == nil || len(c.Argv) == 0 {
		return nil, errors.New("sandbox seatbelt: empty command")
	}
	if p.CacheDir != "" {
		if err := os.MkdirAll(p.CacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox seatbelt: create cache directory: %w", err)
		}
	}
	q := *p
	// The sandbox matches real paths: resolve links where the path exists.
	q.WritableRoots = resolveAll(p.WritableRoots, false)
	q.DenyRead = resolveAll(p.DenyRead, true)
	q.DenyWrite = resolveAll(p.DenyWrite, true)
	if p.CacheDir != "" {
		q.CacheDir = resolveAll([]string{p.CacheDir}, false)[0]
	}
	hostTemps := []string{"/tmp", "/private/tmp", "/var/tmp", "/private/var/tmp", os.TempDir()}
	if v, ok := envValue(c.Env, "TMPDIR"); ok && v != "" {
		hostTemps = append(hostTemps, v)
	}
	hostTemps = resolveAll(hostTemps, true)
	tmp, err := runTmp(p.TempDir, os.TempDir(), q.WritableRoots, c.Env, hostTemps)
	if err != nil {
		return nil, fmt.Errorf("sandbox seatbelt: private temporary directory: %w", err)
	}
	q.WritableRoots = tmp.Roots
	profile, params, err := seatbeltProfile(&q, seatbeltHost{TmpDir: tmp.Dir})
	if err != nil {
		tmp.remove()
		return nil, fmt.Errorf("sandbox %w", err)
	}
	if err := seatbeltLint(profile, params); err != nil {
		tmp.remove()
		return nil, fmt.Errorf("sandbox seatbelt: generated profile refused: %w", err)
	}
	path, code, err := lookPathEnv(c.Argv[0], c.Env, p.Cwd)
	if err != nil {
		tmp.remove()
		if c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "safeexec: %s: %v\n", c.Argv[0], err)
		}
		return &failedProcess{status: Status{ExitCode: code}}, nil
	}
	c, closeStdio := withSafeStdio(c)
	defer closeStdio()
	markInheritedCloexec()
	args := append([]string{"sandbox-exec", "-p", profile}, seatbeltParamArgs(params)...)
	args = append(append(args, "--", path), c.Argv[1:]...)
	cmd := &exec.Cmd{
		Path:        sandboxExec,
		Args:        args,
		Env:         tmp.Env,
		Dir:         p.Cwd,
		Stdin:       c.Stdin,
		Stdout:      c.Stdout,
		Stderr:      c.Stderr,
		ExtraFiles:  c.ExtraFiles,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
		WaitDelay:   2 * time.Second,
	}
	if err := cmd.Start(); err != nil {
		tmp.remove()
		return nil, fmt.Errorf("sandbox seatbelt: start: %w", err)
	}
	return &seatbeltProcess{cmd: cmd, pid: cmd.Process.Pid, tmp: tmp}, nil
}

// resolveAll resolves the links of each absolute path that exists; with
// keep, the original path stays in the list next to its target (a denied
// link hides what it points to, and the link itself).
func resolveAll(paths []string, keep bool) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			out = append(out, p)
			continue
		}
		t, err := filepath.EvalSymlinks(p)
		if err != nil {
			out = append(out, p)
			continue
		}
		if keep && t != p {
			out = append(out, p)
		}
		out = append(out, t)
	}
	return out
}

type seatbeltProcess struct {
	cmd *exec.Cmd
	pid int
	tmp *privateTmp

	mu   sync.Mutex
	done bool
}

func (s *seatbeltProcess) Signal(sig os.Signal) error {
	n, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("sandbox seatbelt: unsupported signal %v", sig)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return os.ErrProcessDone
	}
	if err := syscall.Kill(-s.pid, n); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return fmt.Errorf("sandbox seatbelt: signal %v: %w", sig, err)
	}
	return nil
}

func (s *seatbeltProcess) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	syscall.Kill(-s.pid, syscall.SIGKILL)
	return nil
}

func (s *seatbeltProcess) Wait() (Status, error) {
	err := s.cmd.Wait()
	s.mu.Lock()
	s.done = true
	// What the command left in its group; the group id stays reserved
	// while any member lives.
	syscall.Kill(-s.pid, syscall.SIGKILL)
	s.mu.Unlock()
	s.tmp.remove()
	st := statusOf(s.cmd.ProcessState)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		return st, fmt.Errorf("sandbox seatbelt: wait: %w", err)
	}
	return st, nil
}
