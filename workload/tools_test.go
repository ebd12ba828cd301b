package workload

import (
	"os/exec"
	"strings"
	"testing"
)

// versionCommands are tools and how each prints its version. Version
// managers put shims for them in the home directory (pyenv, rbenv, nvm,
// asdf, mise, rustup, sdkman): inside the sandbox the same shim must pick
// the same tool.
var versionCommands = [][2]string{
	{"python3", "--version"}, {"python", "--version"}, {"pip3", "--version"}, {"pip", "--version"},
	{"node", "--version"}, {"npm", "--version"}, {"npx", "--version"}, {"corepack", "--version"},
	{"yarn", "--version"}, {"pnpm", "--version"}, {"deno", "--version"}, {"bun", "--version"},
	{"cargo", "--version"}, {"rustc", "--version"}, {"rustup", "--version"},
	{"go", "version"}, {"gcc", "--version"}, {"cc", "--version"}, {"make", "--version"}, {"git", "--version"},
	{"java", "-version"}, {"javac", "-version"}, {"mvn", "--version"}, {"gradle", "--version"},
	{"ruby", "--version"}, {"gem", "--version"}, {"perl", "--version"}, {"uv", "--version"},
	{"pyenv", "--version"}, {"rbenv", "--version"}, {"asdf", "--version"}, {"mise", "--version"},
}

// TestToolsSameInsideAndOutside: every tool on the user's PATH resolves
// to the same program, and reports the same version, inside the sandbox
// as outside (with the machine's real home directory, for root as for any
// user).
func TestToolsSameInsideAndOutside(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bare, safe := h.twins("tools", map[string]string{"README": "tools\n"}, "")
	var script strings.Builder
	found := 0
	for _, vc := range versionCommands {
		if _, err := exec.LookPath(vc[0]); err != nil {
			continue
		}
		found++
		// Each tool on its own, so one that fails does not hide the rest.
		script.WriteString("echo '== " + vc[0] + "'; command -v " + vc[0] + "; " + vc[0] + " " + vc[1] + " </dev/null 2>&1; echo \"status $?\"\n")
	}
	for _, must := range []string{"git", "go"} {
		if _, err := exec.LookPath(must); err != nil {
			missing(t, "%s is not installed", must)
		}
	}
	b, _ := h.same(bare, safe, script.String(), nil)
	t.Logf("%d tools compared:\n%s", found, b.stdout)
}
