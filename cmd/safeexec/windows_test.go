//go:build windows

package main

// The Windows scripts (testdata/windows): they run under Wine on Linux CI
// and on real Windows (the windows-latest workflow). Wine does not enforce
// restricted tokens or ACLs and its powershell.exe is a stub that runs
// nothing, so scripts say [!wine] where they assert either.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/windows"
)

// platformCommands: "bash" stands in for Git for Windows' bash.exe: copied
// to $WORK\Git\bin\bash.exe it prints its arguments (one JSON list) and
// its standard input, so scripts can see exactly what safeexec ran.
func platformCommands() map[string]func() {
	return map[string]func(){
		"bash": func() {
			b, _ := json.Marshal(os.Args[1:])
			fmt.Printf("bash %s\n", b)
			os.Exit(0)
		},
	}
}

// platformMain does testscript.Main's work under Wine, where Main's final
// os.RemoveAll of its command directory fails (Wine cannot remove a
// directory tree that way) and turns a passing run into a failed one:
// run a registered command, or put them all in a directory on PATH, run
// the tests and remove the directory file by file.
func platformMain(m *testing.M, cmds map[string]func()) (int, bool) {
	if !underWine() {
		return 0, false
	}
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if f := cmds[name]; f != nil {
		os.Args[0] = name
		f()
		return 0, true
	}
	self, err := os.Executable()
	if err != nil {
		return 1, true
	}
	dir, err := os.MkdirTemp("", "safeexec-cmds-")
	if err != nil {
		return 1, true
	}
	defer removeTree(dir)
	for n := range cmds {
		if err := copyFile(self, filepath.Join(dir, n+".exe")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run(), true
}

// removeTree removes a directory file by file, deepest first.
func removeTree(dir string) {
	var paths []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		paths = append(paths, p)
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(paths)))
	for _, p := range paths {
		os.Remove(p)
	}
}

func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func TestWindowsScripts(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/windows",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// The home lies beside $WORK, not in it: a working
			// directory that contains the home is not a project.
			home := env.WorkDir + "-home"
			for _, d := range []string{home, filepath.Join(env.WorkDir, "Git", "cmd"), filepath.Join(env.WorkDir, "Git", "bin")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			env.Defer(func() { os.RemoveAll(home) })
			// A Git for Windows layout: git.exe in cmd\ (only its place
			// matters), the stand-in bash.exe in bin\.
			if err := os.WriteFile(filepath.Join(env.WorkDir, "Git", "cmd", "git.exe"), nil, 0o755); err != nil {
				return err
			}
			if err := copyFile(self, filepath.Join(env.WorkDir, "Git", "bin", "bash.exe")); err != nil {
				return err
			}
			env.Setenv("USERPROFILE", home)
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("GITDIR", filepath.Join(env.WorkDir, "Git", "cmd"))
			env.Setenv("ORIGPATH", env.Getenv("PATH"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "wine":
				return underWine(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
