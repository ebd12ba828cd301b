package sandbox

// winKnownPath is a path below one of the user's known folders.
type winKnownPath struct {
	// Folder is "profile", "appdata" (Roaming), "localappdata" or
	// "documents".
	Folder string
	Rel    string // slash-separated
}

// winHostRuns are places below the user's folders from which the host
// later runs code, reads agent or editor settings that name commands, or
// keeps safeexec's own state. Compat mode makes %APPDATA% and
// %LOCALAPPDATA% writable (as the seed's table of modes says), and any
// writable root may contain them (working in the home directory): the
// helper puts a deny ACE on those that exist below a granted root, and the
// run's guard takes back what the command creates at those that do not.
// A list of places is a denylist; strict mode, which grants neither
// folder, is the mode for code you do not trust.
var winHostRuns = []winKnownPath{
	{"appdata", `Microsoft/Windows/Start Menu`}, // the Startup folder runs at logon
	{"appdata", `Microsoft/Windows/PowerShell`}, // PSReadLine history
	{"appdata", `Microsoft/Windows/Templates`},
	{"appdata", `npm`},    // global npm commands, on PATH
	{"appdata", `Python`}, // pip --user scripts, on PATH
	{"appdata", `Code/User`},
	{"appdata", `Code - Insiders/User`},
	{"appdata", `Cursor/User`},
	{"appdata", `Windsurf/User`},
	{"appdata", `Claude`}, // Claude Desktop's MCP servers
	{"appdata", `GitHub CLI`},
	{"appdata", `gcloud`},
	{"appdata", `NuGet`},
	{"appdata", `safeexec`},
	{"localappdata", `Programs`}, // per-user installs (Python, VS Code, Git)
	{"localappdata", `Microsoft/WindowsApps`},
	{"localappdata", `Microsoft/WinGet`},
	{"localappdata", `Microsoft/Windows/PowerShell`},
	{"localappdata", `Temp`}, // the host's %TEMP%; the command has its own
	{"localappdata", `safeexec`},
	{"documents", `PowerShell`}, // PowerShell 7 profiles
	{"documents", `WindowsPowerShell`},
	{"profile", `.ssh`},
	{"profile", `.aws`},
	{"profile", `.azure`},
	{"profile", `.docker`},
	{"profile", `.kube`},
	{"profile", `.gitconfig`},
	{"profile", `.claude`},
	{"profile", `.codex`},
	{"profile", `.gemini`},
	{"profile", `.bashrc`},
	{"profile", `.bash_profile`},
	{"profile", `.profile`},
	{"profile", `.minttyrc`},
}
