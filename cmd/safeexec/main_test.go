package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// A copy of this binary installed as bash (nested.txtar) is safeexec
	// standing in for a shell, as the real binary is.
	if shimName(os.Args[0]) != "" {
		os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	cmds := map[string]func(){
		"safeexec": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	}
	for name, f := range platformCommands() {
		cmds[name] = f
	}
	if code, ok := platformMain(m, cmds); ok {
		os.Exit(code)
	}
	testscript.Main(m, cmds)
}

// requireSandbox is set by CI: a test that needs a sandbox fails instead of
// skipping when none works.
var requireSandbox = os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1"

var (
	bwrapOnce sync.Once
	bwrapErr  error
)

// bwrapWorks reports whether bwrap is installed and can create the
// namespaces safeexec uses.
func bwrapWorks() error {
	bwrapOnce.Do(func() {
		if runtime.GOOS != "linux" {
			bwrapErr = fmt.Errorf("bwrap is Linux only")
			return
		}
		path, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapErr = fmt.Errorf("bwrap is not installed (apt-get install bubblewrap)")
			return
		}
		out, err := exec.Command(path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--unshare-all", "--die-with-parent", "--", "true").CombinedOutput()
		if err != nil {
			bwrapErr = fmt.Errorf("bwrap cannot start a sandbox here: %v: %s", err, out)
		}
	})
	return bwrapErr
}

func TestScripts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("these scripts drive Unix tools (sh, coreutils, bwrap); testdata/windows holds the Windows ones (TestWindowsScripts)")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// The home directory lies outside $WORK (a working directory
			// that contains the home is not a project); $WORK/home leads
			// to it.
			home := env.WorkDir + "-home"
			for _, d := range []string{home, filepath.Join(env.WorkDir, "bin")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			if err := os.Symlink(home, filepath.Join(env.WorkDir, "home")); err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(home) })
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("PATH", filepath.Join(env.WorkDir, "bin")+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("USER", "tester")
			// The attack script lives in the work directory: the
			// repository may lie under the host's /tmp (a CI checkout),
			// which the sandbox replaces with the project's own.
			b, err := os.ReadFile(filepath.Join("..", "..", "sandbox", "testdata", "reach.py"))
			if err != nil {
				return err
			}
			reach := filepath.Join(env.WorkDir, "reach.py")
			if err := os.WriteFile(reach, b, 0o644); err != nil {
				return err
			}
			env.Setenv("REACH_PY", reach)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bwrap":
				err := bwrapWorks()
				if err != nil && requireSandbox {
					return false, fmt.Errorf("SAFEEXEC_REQUIRE_SANDBOX=1 but %v", err)
				}
				return err == nil, nil
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: scriptCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mode":        cmdMode,
			"linecount":   cmdLinecount,
			"httpserve":   cmdHTTPServe,
			"hostproc":    cmdHostProc,
			"sameverdict": cmdSameVerdict,
		}),
	})
}

// scriptCmds adds the pty commands (ptyscript_*_test.go) to cmds.
func scriptCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	for name, f := range ptyCmds {
		cmds[name] = f
	}
	return cmds
}

// mode PERM FILE asserts a file's permission bits (e.g. mode 0600 f).
func cmdMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mode PERM FILE")
	}
	fi, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	got := fmt.Sprintf("%04o", fi.Mode().Perm())
	if (got == args[0]) == neg {
		ts.Fatalf("%s has mode %s, want %s%s", args[1], got, map[bool]string{true: "not ", false: ""}[neg], args[0])
	}
}

// linecount N FILE asserts how many lines a file has.
func cmdLinecount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: linecount N FILE")
	}
	data := ts.ReadFile(args[1])
	n := strings.Count(data, "\n")
	if (fmt.Sprint(n) == args[0]) == neg {
		ts.Fatalf("%s has %d lines, want %s", args[1], n, args[0])
	}
}

// httpserve VAR starts an HTTP server on a free loopback port for the rest
// of the script and sets $VAR to its port. It answers "hello from the
// host" and counts requests in $WORK/requests.
func cmdHTTPServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpserve VAR")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	count := ts.MkAbs("requests")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.OpenFile(count, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, r.Method, r.URL.Path)
			f.Close()
		}
		fmt.Fprintln(w, "hello from the host")
	})}
	go srv.Serve(ln)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// hostproc start FILE starts a process outside any sandbox (sleep) for the
// rest of the script and writes its pid to FILE; hostproc check FILE
// asserts that it still runs, asleep, with the nice value, CPU affinity,
// tracer and resource limits it started with.
func cmdHostProc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hostproc start|check FILE")
	}
	file := ts.MkAbs(args[1])
	switch args[0] {
	case "start":
		cmd := exec.Command("sleep", "600")
		ts.Check(cmd.Start())
		ts.Defer(func() { cmd.Process.Kill(); cmd.Wait() })
		pid := cmd.Process.Pid
		state := hostProcState(pid)
		for i := 0; i < 200 && !strings.HasPrefix(state, "S "); i++ {
			time.Sleep(5 * time.Millisecond)
			state = hostProcState(pid)
		}
		ts.Check(os.WriteFile(file, []byte(strconv.Itoa(pid)+"\n"), 0o644))
		ts.Check(os.WriteFile(file+".state", []byte(state), 0o644))
	case "check":
		pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[1])))
		ts.Check(err)
		want := ts.ReadFile(args[1] + ".state")
		if got := hostProcState(pid); got != want {
			ts.Fatalf("host process %d changed:\nbefore %s\nafter  %s", pid, want, got)
		}
	default:
		ts.Fatalf("usage: hostproc start|check FILE")
	}
}

// hostProcState is what an attack on a process would change.
func hostProcState(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return "gone"
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	out := f[0] + " nice " + f[16] + "\n"
	status, _ := os.ReadFile(dir + "/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Cpus_allowed_list") || strings.HasPrefix(l, "TracerPid") {
			out += l + "\n"
		}
	}
	limits, _ := os.ReadFile(dir + "/limits")
	return out + string(limits)
}
