package shell

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// The agents' file names are matched by hand; these are the patterns
// they implement, checked against each other on names built from the
// patterns' own pieces and on random mutations of real names.
func TestAgentNameMatchers(t *testing.T) {
	cases := []struct {
		name    string
		match   func(string) bool
		pattern string
		pieces  []string
		real    []string
	}{
		{"claudeCwdFile", claudeCwdFile, `^claude-[0-9a-f]+-cwd$`,
			[]string{"claude-", "-cwd", "cwd", "0", "9", "a", "f", "g", "A", "-", "/", "."},
			[]string{"claude-f8eb-cwd", "claude-0-cwd"}},
		{"claudeSnapshot", claudeSnapshot, `/shell-snapshots/snapshot-(bash|zsh|sh)-[0-9]+-[0-9a-z]+\.sh$`,
			[]string{"/", "shell-snapshots", "/shell-snapshots/", "snapshot-", "bash", "zsh", "sh", "fish", "-", "1", "0", "a", "z", "Z", ".sh", ".", "~", "x"},
			[]string{"/home/u/.claude/shell-snapshots/snapshot-bash-1788557415117-j0hu0n.sh", "~/.claude/shell-snapshots/snapshot-zsh-1-a.sh", "/shell-snapshots/snapshot-sh-1-1.sh"}},
		{"geminiPgrepFile", geminiPgrepFile, `^shell_pgrep_[0-9a-f]+\.tmp$`,
			[]string{"shell_pgrep_", "shell_", "pgrep_", ".tmp", "tmp", ".", "0", "f", "g", "_"},
			[]string{"shell_pgrep_abc123.tmp"}},
		{"zshNoOption", zshNoOption, `^NO_[A-Z_]+$`,
			[]string{"NO_", "NO", "_", "A", "Z", "a", "1", " "},
			[]string{"NO_EXTENDED_GLOB", "NO_A"}},
		{"macTempDir", macTempDir, `^/(private/)?var/folders/[^/]+/[^/]+/T$`,
			[]string{"/", "/private", "private/", "/var/folders/", "var", "folders", "x", "T", "/T", "é", "//"},
			[]string{"/var/folders/ab/cd/T", "/private/var/folders/x/y/T"}},
	}
	rng := rand.New(rand.NewSource(4))
	for _, c := range cases {
		re := regexp.MustCompile(c.pattern)
		check := func(s string) {
			if got, want := c.match(s), re.MatchString(s); got != want {
				t.Fatalf("%s(%q) = %v, the pattern %s says %v", c.name, s, got, c.pattern, want)
			}
		}
		for _, s := range c.real {
			if !c.match(s) {
				t.Errorf("%s(%q) = false", c.name, s)
			}
			check(s)
			// Each mutation at each place: a byte dropped, doubled or
			// replaced by a piece.
			for i := 0; i <= len(s); i++ {
				if i < len(s) {
					check(s[:i] + s[i+1:])
					check(s[:i] + s[i:i+1] + s[i:])
				}
				for _, p := range c.pieces {
					check(s[:i] + p + s[i:])
					if i < len(s) {
						check(s[:i] + p + s[i+1:])
					}
				}
			}
		}
		if c.name == "claudeSnapshot" {
			// Every assembly of its parts, right and wrong.
			for _, dir := range []string{"/h/.claude/shell-snapshots/", "/shell-snapshots/", "shell-snapshots/", "/x/shell-snapshot/", "~/.claude/shell-snapshots/", "/shell-snapshots//", ""} {
				for _, sh := range []string{"bash", "zsh", "sh", "fish", "", "ba", "bashsh"} {
					for _, d := range []string{"", "1", "12", "a", "1a", "-1"} {
						for _, id := range []string{"", "a", "a1", "A", "a-b", "a.b", "é"} {
							for _, suf := range []string{".sh", ".sh.sh", "", ".bash", "sh"} {
								check(dir + "snapshot-" + sh + "-" + d + "-" + id + suf)
								check(dir + "snapshot" + sh + "-" + d + "-" + id + suf)
							}
						}
					}
				}
			}
		}
		for n := 0; n < 50000; n++ {
			var sb strings.Builder
			for k := rng.Intn(8); k > 0; k-- {
				sb.WriteString(c.pieces[rng.Intn(len(c.pieces))])
			}
			check(sb.String())
		}
	}
}

// specialLit is strings.ContainsAny(s, "\\*?[~") by hand.
func TestSpecialLit(t *testing.T) {
	pieces := []string{"a", "\\", "*", "?", "[", "~", "]", "é", "\xff", "-", "/"}
	rng := rand.New(rand.NewSource(5))
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := rng.Intn(6); k > 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := sb.String()
		if got, want := specialLit(s), strings.ContainsAny(s, "\\*?[~"); got != want {
			t.Fatalf("specialLit(%q) = %v, want %v", s, got, want)
		}
	}
}
