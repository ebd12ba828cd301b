package safeexec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/shell"
)

// fakeHost is a machine laid out under a temporary directory: files that
// exist, a PATH of directories, environment variables.
type fakeHost struct {
	goos  string
	path  []string
	env   map[string]string
	files []string
}

func (f *fakeHost) host(t *testing.T) shellHost {
	t.Helper()
	for _, p := range f.files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	return shellHost{
		goos: f.goos,
		lookPath: func(name string) (string, error) {
			for _, d := range f.path {
				if p := filepath.Join(d, name); exists(p) {
					return p, nil
				}
			}
			return "", errors.New("not found")
		},
		exists: exists,
		getenv: func(k string) string { return f.env[k] },
	}
}

type shellCase struct {
	name  string
	host  fakeHost
	want  string
	kind  string
	path  string
	fails bool
}

// tempDir is t.TempDir, removed file by file: Wine, where the Windows
// build of these tests runs in CI, cannot os.RemoveAll.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "safeexec-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return d
}

func TestResolveShellWindows(t *testing.T) {
	root := tempDir(t)
	for i := 0; ; i++ {
		// Each case gets an empty machine of its own.
		base := filepath.Join(root, fmt.Sprint(i))
		cases := windowsShellCases(base)
		if i >= len(cases) {
			break
		}
		tc := cases[i]
		t.Run(tc.name, func(t *testing.T) {
			tc.host.goos = "windows"
			tc.host.env = map[string]string{"SystemRoot": filepath.Join(base, "Windows"),
				"ProgramFiles": filepath.Join(base, "PF"), "LOCALAPPDATA": filepath.Join(base, "L")}
			h := tc.host.host(t)
			sh, err := resolveShell(tc.want, h, true)
			if tc.fails {
				if !errors.Is(err, errNoShell) {
					t.Fatalf("got %+v, %v; want an error", sh, err)
				}
				if tc.want == "bash" && !strings.Contains(err.Error(), "WSL") {
					t.Errorf("the error should say why System32's bash is not used: %v", err)
				}
				// check classifies without the program.
				if sh, err := resolveShell(tc.want, h, false); err != nil || sh.Kind != tc.kind {
					t.Errorf("without a path: %+v %v", sh, err)
				}
				return
			}
			if err != nil || sh.Kind != tc.kind || sh.Path != tc.path {
				t.Errorf("got %+v, %v; want %s at %s", sh, err, tc.kind, tc.path)
			}
		})
	}
}

func windowsShellCases(base string) []shellCase {
	at := func(parts ...string) string { return filepath.Join(append([]string{base}, parts...)...) }
	sysroot := at("Windows")
	wslBash := filepath.Join(sysroot, "System32", "bash.exe")
	winPS := filepath.Join(sysroot, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
	cmdExe := filepath.Join(sysroot, "System32", "cmd.exe")
	return []shellCase{
		{name: "git on PATH (cmd dir)", want: "auto", kind: ShellBash, path: at("Git", "bin", "bash.exe"),
			host: fakeHost{path: []string{at("Git", "cmd")}, files: []string{at("Git", "cmd", "git.exe"), at("Git", "bin", "bash.exe"), winPS}}},
		{name: "git on PATH (mingw64)", want: "bash", kind: ShellBash, path: at("G", "bin", "bash.exe"),
			host: fakeHost{path: []string{at("G", "mingw64", "bin")}, files: []string{at("G", "mingw64", "bin", "git.exe"), at("G", "bin", "bash.exe")}}},
		{name: "git in Program Files", want: "auto", kind: ShellBash, path: at("PF", "Git", "bin", "bash.exe"),
			host: fakeHost{files: []string{at("PF", "Git", "bin", "bash.exe"), winPS}}},
		{name: "git per user", want: "auto", kind: ShellBash, path: at("L", "Programs", "Git", "bin", "bash.exe"),
			host: fakeHost{files: []string{at("L", "Programs", "Git", "bin", "bash.exe")}}},
		{name: "MSYS2 bash on PATH", want: "bash", kind: ShellBash, path: at("msys64", "usr", "bin", "bash.exe"),
			host: fakeHost{path: []string{at("msys64", "usr", "bin")}, files: []string{at("msys64", "usr", "bin", "bash.exe"), at("msys64", "usr", "bin", "msys-2.0.dll")}}},
		// System32's bash.exe runs WSL, outside the sandbox: never taken.
		{name: "only WSL's bash: PowerShell", want: "auto", kind: ShellPowerShell, path: winPS,
			host: fakeHost{path: []string{filepath.Join(sysroot, "System32")}, files: []string{wslBash, winPS}}},
		{name: "only WSL's bash, bash asked", want: "bash", kind: ShellBash, fails: true,
			host: fakeHost{path: []string{filepath.Join(sysroot, "System32")}, files: []string{wslBash}}},
		{name: "a bare bash.exe elsewhere", want: "bash", kind: ShellBash, fails: true,
			host: fakeHost{path: []string{at("tools")}, files: []string{at("tools", "bash.exe")}}},
		{name: "pwsh preferred to Windows PowerShell", want: "auto", kind: ShellPwsh, path: at("PF", "PowerShell", "7", "pwsh.exe"),
			host: fakeHost{files: []string{at("PF", "PowerShell", "7", "pwsh.exe"), winPS}}},
		{name: "powershell asked: Windows PowerShell", want: "powershell", kind: ShellPowerShell, path: winPS,
			host: fakeHost{files: []string{at("PF", "PowerShell", "7", "pwsh.exe"), winPS}}},
		{name: "pwsh asked, missing", want: "pwsh", kind: ShellPwsh, fails: true, host: fakeHost{files: []string{winPS}}},
		{name: "cmd", want: "cmd", kind: ShellCmd, path: cmdExe, host: fakeHost{files: []string{cmdExe}}},
	}
}

func TestResolveShellUnix(t *testing.T) {
	h := (&fakeHost{goos: "linux"}).host(t)

	h.exists = func(p string) bool { return p == "/usr/bin/bash" }
	if sh, err := resolveShell("", h, true); err != nil || sh.Kind != ShellBash || sh.Path != "/usr/bin/bash" {
		t.Errorf("auto: %+v %v", sh, err)
	}
	h.exists = func(string) bool { return false }
	if sh, err := resolveShell("auto", h, true); err != nil || sh.Kind != shellSh || sh.Path != "/bin/sh" {
		t.Errorf("auto without bash: %+v %v", sh, err)
	}
	if _, err := resolveShell("bash", h, true); !errors.Is(err, errNoShell) {
		t.Errorf("bash without bash: %v", err)
	}
	for _, want := range []string{"powershell", "pwsh"} {
		if _, err := resolveShell(want, h, true); !errors.Is(err, errNoShell) {
			t.Errorf("%s without pwsh: %v", want, err)
		}
	}
	h.lookPath = func(n string) (string, error) {
		if n == "pwsh" {
			return "/opt/microsoft/powershell/7/pwsh", nil
		}
		return "", errors.New("no")
	}
	for _, want := range []string{"powershell", "pwsh"} {
		if sh, err := resolveShell(want, h, true); err != nil || sh.Path != "/opt/microsoft/powershell/7/pwsh" || sh.Kind != want {
			t.Errorf("%s: %+v %v", want, sh, err)
		}
	}
	if _, err := resolveShell("cmd", h, true); !errors.Is(err, errNoShell) || !strings.Contains(err.Error(), "only on Windows") {
		t.Errorf("cmd on Linux: %v", err)
	}
	if sh, err := resolveShell("cmd", h, false); err != nil || sh.Kind != ShellCmd {
		t.Errorf("cmd for check: %+v %v", sh, err)
	}
	if _, err := resolveShell("zsh", h, false); err == nil {
		t.Error("zsh accepted")
	}
}

func TestScriptArgv(t *testing.T) {
	for _, tc := range []struct {
		sh      scriptShell
		args    []string
		run     []string
		dialect shell.Dialect
		fails   bool
	}{
		{sh: scriptShell{ShellBash, "/bin/bash"}, args: []string{"n", "1"},
			run: []string{"/bin/bash", "-c", "S", "n", "1"}, dialect: shell.Sh},
		{sh: scriptShell{shellSh, "/bin/sh"}, run: []string{"/bin/sh", "-c", "S"}, dialect: shell.Sh},
		{sh: scriptShell{ShellPwsh, `C:\pwsh.exe`},
			run: []string{`C:\pwsh.exe`, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "S"}, dialect: shell.PowerShell},
		{sh: scriptShell{ShellPowerShell, "powershell.exe"},
			run: []string{"powershell.exe", "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "S"}, dialect: shell.PowerShell},
		{sh: scriptShell{ShellCmd, `C:\Windows\System32\cmd.exe`},
			run: []string{`C:\Windows\System32\cmd.exe`, "/d", "/s", "/c", "S"}, dialect: shell.Cmd},
		{sh: scriptShell{ShellCmd, "cmd.exe"}, args: []string{"x"}, fails: true, dialect: shell.Cmd},
		{sh: scriptShell{ShellPwsh, "pwsh"}, args: []string{"x"}, fails: true, dialect: shell.PowerShell},
	} {
		run, err := tc.sh.scriptArgv("S", tc.args)
		if tc.fails != (err != nil) || !slices.Equal(run, tc.run) || tc.sh.dialect() != tc.dialect {
			t.Errorf("%+v %q: run %q dialect %v err %v", tc.sh, tc.args, run, tc.sh.dialect(), err)
		}
	}
}
