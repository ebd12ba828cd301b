package main

import (
	"testing"

	"github.com/safeexec/safeexec"
)

// A hook judges a command in the language of the shell the agent runs it
// in (the agents' documented shells), on every platform.
func TestHookShell(t *testing.T) {
	for _, tc := range []struct {
		agent, tool, goos, want string
	}{
		{"claude", "Bash", "linux", safeexec.ShellBash},
		{"claude", "Bash", "windows", safeexec.ShellBash}, // Git for Windows' bash
		{"claude", "PowerShell", "windows", safeexec.ShellPowerShell},
		{"claude", "PowerShell", "darwin", safeexec.ShellPowerShell},
		{"codex", "Bash", "linux", safeexec.ShellBash},
		{"codex", "Bash", "windows", safeexec.ShellPowerShell},
		{"codex", "exec_command", "windows", safeexec.ShellPowerShell},
		{"gemini", "run_shell_command", "darwin", safeexec.ShellBash},
		{"gemini", "run_shell_command", "windows", safeexec.ShellPowerShell},
	} {
		if got := hookShell(tc.agent, tc.tool, tc.goos); got != tc.want {
			t.Errorf("hookShell(%s, %s, %s) = %s, want %s", tc.agent, tc.tool, tc.goos, got, tc.want)
		}
	}
}

// The hook's command line runs in the shell each agent runs hooks in:
// bash for Claude Code, PowerShell for Codex and Gemini CLI on Windows
// (where a quoted path alone is a string and would silently run nothing).
func TestHookCommandLine(t *testing.T) {
	for _, tc := range []struct {
		agent, exe, goos, want string
	}{
		{"claude", "/usr/local/bin/safeexec", "linux", "/usr/local/bin/safeexec hook claude"},
		{"codex", "/home/a b/safeexec", "darwin", "'/home/a b/safeexec' hook codex"},
		{"claude", `C:\Users\dev\bin\safeexec.exe`, "windows", "C:/Users/dev/bin/safeexec.exe hook claude"},
		{"gemini", `C:\Users\dev\bin\safeexec.exe`, "windows", "C:/Users/dev/bin/safeexec.exe hook gemini"},
		{"claude", `C:\Program Files\safeexec\safeexec.exe`, "windows", "'C:/Program Files/safeexec/safeexec.exe' hook claude"},
		{"codex", `C:\Program Files\safeexec\safeexec.exe`, "windows", "& 'C:/Program Files/safeexec/safeexec.exe' hook codex"},
		{"gemini", `C:\Users\O'Neil\safeexec.exe`, "windows", "& 'C:/Users/O''Neil/safeexec.exe' hook gemini"},
	} {
		got := hookCommandLine(tc.agent, tc.exe, tc.goos)
		if got != tc.want {
			t.Errorf("hookCommandLine(%s, %s, %s) = %s, want %s", tc.agent, tc.exe, tc.goos, got, tc.want)
		}
		// Every form is recognised as safeexec's hook (a later install
		// from elsewhere replaces it instead of adding a second one).
		if !isSafeexecHook(got, hookCommandLine(tc.agent, "/elsewhere/safeexec", "linux")) {
			t.Errorf("isSafeexecHook(%s) = false", got)
		}
	}
	for _, cmd := range []string{`'C:\old\safeexec.exe' hook codex`, `"C:\old\SafeExec.EXE" hook codex`, `& 'C:\old\safeexec.exe' hook codex`} {
		if !isSafeexecHook(cmd, "& 'C:/new/safeexec.exe' hook codex") {
			t.Errorf("isSafeexecHook(%s) = false", cmd)
		}
	}
	for _, cmd := range []string{`C:\x\notsafeexec.exe hook codex`, `safeexec.exe hook claude`, `echo safeexec hook codex`} {
		if isSafeexecHook(cmd, "& 'C:/new/safeexec.exe' hook codex") {
			t.Errorf("isSafeexecHook(%s) = true", cmd)
		}
	}
}
