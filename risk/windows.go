package risk

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

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
