package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Windows: the registry, system recovery, Defender and the firewall,
// PowerShell's encoded commands and Invoke-Expression, scripts fetched by
// mshta and regsvr32.

var windowsFoldJudges = map[string]judgeFunc{
	"reg":  func(j *judge, c *shell.Command) { j.registry(c) },
	"pwsh": encodedCommand, "powershell": encodedCommand,
	"vssadmin": backups, "wbadmin": backups,
	"wmic": func(j *judge, c *shell.Command) {
		if hasWordFold(c.Args, "shadowcopy") && hasWordFold(c.Args, "delete") {
			j.hit(c, ruleSystemRecovery, "wmic deletes shadow copies")
			return
		}
		wmiProcess(j, c)
	},
	"invoke-wmimethod": wmiProcess, "invoke-cimmethod": wmiProcess, "iwmi": wmiProcess,
	"mshta": scriptURL, "regsvr32": scriptURL,
	"wevtutil": func(j *judge, c *shell.Command) {
		if hasWordFold(c.Args, "cl", "clear-log") {
			j.hit(c, ruleSystemRecovery, "wevtutil clears an event log")
		}
	},
	"bcdedit": func(j *judge, c *shell.Command) {
		if shell.WinFlag(c.Args, "set", "delete", "deletevalue", "import") {
			j.hit(c, ruleSystemRecovery, "bcdedit changes the boot configuration")
		}
	},
	"netsh": func(j *judge, c *shell.Command) {
		if hasWordFold(c.Args, "firewall", "advfirewall") && hasWordFold(c.Args, "off", "disable") {
			j.hit(c, ruleDefenderDisable, "netsh turns the firewall off")
		}
	},
	"set-mppreference": defender, "add-mppreference": defender,
	"disable-computerrestore": restorePoints, "clear-eventlog": restorePoints, "remove-computerrestorepoint": restorePoints,
	"set-netfirewallprofile": firewall, "set-netfirewallrule": firewall, "disable-netfirewallrule": firewall,
	"set-executionpolicy": func(j *judge, c *shell.Command) {
		scope, ok := shell.PSValue(c.Args, "scope", 1)
		if !ok || !slices.Contains([]string{"process", "currentuser"}, strings.ToLower(scope.Value)) {
			j.hit(c, ruleRegistrySystem, "Set-ExecutionPolicy changes the machine-wide script policy")
		}
	},
	"invoke-expression": func(j *judge, c *shell.Command) { j.invokeExpression(c) },
	"iex":               func(j *judge, c *shell.Command) { j.invokeExpression(c) },
}

// encodedCommand: powershell -EncodedCommand (any unambiguous prefix).
func encodedCommand(j *judge, c *shell.Command) {
	for i, a := range c.Args[1:] {
		v := strings.ToLower(strings.TrimLeft(a.Value, "-/"))
		v, _, _ = strings.Cut(v, ":")
		if (strings.HasPrefix(a.Value, "-") || strings.HasPrefix(a.Value, "/")) && v != "" && (v == "ec" || strings.HasPrefix("encodedcommand", v) && v[0] == 'e' && !strings.HasPrefix(v, "ex") && !strings.HasPrefix(v, "ea")) {
			j.hit(c, ruleEncodedCommand, "%s -EncodedCommand runs hidden code", c.Name())
			break
		}
		if !strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "/") && i > 0 {
			break
		}
	}
}

func backups(j *judge, c *shell.Command) {
	if hasWordFold(c.Args, "delete", "resize") {
		j.hit(c, ruleSystemRecovery, "%s deletes backups or shadow copies", c.Name())
	}
}

func wmiProcess(j *judge, c *shell.Command) {
	if hasWordFold(c.Args, "create") && (hasWordFold(c.Args, "process", "win32_process") || strings.Contains(strings.ToLower(c.String()), "win32_process")) {
		j.hit(c, ruleSandboxEscape, "%s starts a process through WMI, outside the sandbox", c.Name())
	}
}

func scriptURL(j *judge, c *shell.Command) {
	if s := strings.ToLower(c.String()); strings.Contains(s, "http:") || strings.Contains(s, "https:") {
		j.hit(c, rulePipeToShell, "%s runs script code fetched from the network", c.Name())
	}
}

func defender(j *judge, c *shell.Command) {
	for _, a := range c.Args[1:] {
		l := strings.ToLower(a.Value)
		if strings.HasPrefix(l, "-disable") || strings.HasPrefix(l, "-exclusion") {
			j.hit(c, ruleDefenderDisable, "%s weakens Microsoft Defender (%s)", c.Name(), a.Value)
			break
		}
	}
}

func restorePoints(j *judge, c *shell.Command) {
	j.hit(c, ruleSystemRecovery, "%s removes system restore points or logs", c.Name())
}

func firewall(j *judge, c *shell.Command) {
	lname := strings.ToLower(c.Name())
	if v, ok := shell.PSValue(c.Args, "enabled", 2); lname == "disable-netfirewallrule" || ok && slices.Contains([]string{"false", "0", "$false"}, strings.ToLower(v.Value)) {
		j.hit(c, ruleDefenderDisable, "%s turns the firewall off", c.Name())
	}
}

// registryWrite judges writes to registry paths; it reports whether the
// target was a registry path.
func (j *judge) registryWrite(c *shell.Command, w shell.Word) bool {
	v := strings.ToLower(strings.ReplaceAll(w.Value, "/", `\`))
	v = strings.TrimPrefix(v, `registry::`)
	switch {
	case strings.HasPrefix(v, "hklm:") || strings.HasPrefix(v, "hkey_local_machine"):
		j.hit(c, ruleRegistrySystem, "changes the machine-wide registry key %s", w.Value)
	case strings.HasPrefix(v, "hkcu:") || strings.HasPrefix(v, "hkey_current_user"):
		if strings.Contains(v, `\currentversion\run`) || strings.Contains(v, `\winlogon`) || strings.Contains(v, `\image file execution options`) {
			j.hit(c, rulePersistence, "changes %s, which starts programs at logon", w.Value)
		}
	case strings.HasPrefix(v, "hk") && strings.Contains(v, ":"):
	default:
		return false
	}
	return true
}

// registry flags reg delete/add on machine and user hives.
func (j *judge) registry(c *shell.Command) {
	args := c.Args
	if len(args) < 3 {
		return
	}
	op := strings.ToLower(args[1].Value)
	key := strings.ToUpper(args[2].Value)
	machine := strings.HasPrefix(key, "HKLM") || strings.HasPrefix(key, "HKEY_LOCAL_MACHINE") || strings.HasPrefix(key, `\\`)
	user := strings.HasPrefix(key, "HKCU") || strings.HasPrefix(key, "HKEY_CURRENT_USER")
	switch op {
	case "delete":
		if machine {
			j.hit(c, ruleRegistrySystem, "reg delete removes machine-wide registry keys")
		} else if user {
			j.hit(c, ruleRegistryDelete, "reg delete removes registry keys of the current user")
		} else {
			j.hit(c, ruleRegistrySystem, "reg delete removes registry keys")
		}
	case "add", "import", "restore", "load", "copy":
		if machine || op == "import" || op == "restore" || op == "load" {
			j.hit(c, ruleRegistrySystem, "reg %s changes machine-wide registry keys", op)
		}
	}
}

// invokeExpression judges PowerShell's Invoke-Expression.
func (j *judge) invokeExpression(c *shell.Command) {
	var t shell.Taint
	dynamic := false
	for _, a := range c.Args[1:] {
		t |= a.Taint
		if a.Dynamic {
			dynamic = true
		}
	}
	t |= c.Stdin.Taint
	if t&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hitPipe(c, rulePipeToShell, "Invoke-Expression runs code %s", taintText(t))
		return
	}
	if dynamic || len(c.Args) == 1 {
		j.hit(c, ruleEval, "Invoke-Expression runs text only known at run time")
	}
}
