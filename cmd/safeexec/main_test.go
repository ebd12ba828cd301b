package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"safeexec": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
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
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			for _, d := range []string{home, filepath.Join(env.WorkDir, "bin")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("PATH", filepath.Join(env.WorkDir, "bin")+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("USER", "tester")
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mode":      cmdMode,
			"linecount": cmdLinecount,
		},
	})
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
