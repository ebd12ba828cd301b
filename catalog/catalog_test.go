package catalog

import (
	"testing"

	"github.com/safeexec/safeexec/shell"
)

// No two families claim one program (the first would hide the other's
// entry), and none has an empty entry.
func TestFamilies(t *testing.T) {
	owner := map[string]int{}
	for i, fam := range families {
		for name, tool := range fam {
			if j, dup := owner[name]; dup {
				t.Errorf("%s is in families %d and %d", name, j, i)
			}
			if tool == nil {
				t.Errorf("%s has a nil entry", name)
			}
			owner[name] = i
		}
	}
	if len(owner) < 500 {
		t.Errorf("only %d programs in the catalog", len(owner))
	}
	for _, name := range []string{"env", "git", "curl", "rm", "tar", "ssh", "make", "python3", "vim", "tmux", "sed", "docker", "gh", "crontab", "apt-get"} {
		if Lookup(name) == nil {
			t.Errorf("%s is not in the catalog", name)
		}
	}
	if Lookup("no-such-program") != nil || Tools("no-such-program") != nil {
		t.Error("an unknown program is known")
	}
}

// Environment printers count only in the shapes listed.
func TestEnvPrinter(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want bool
	}{
		{[]string{"brew", "shellenv"}, true},
		{[]string{"brew", "shellenv", "zsh"}, true},
		{[]string{"brew", "shellenv", "zsh", "bash"}, false},
		{[]string{"brew", "install", "x"}, false},
		{[]string{"pyenv", "init", "-"}, true},
		{[]string{"pyenv", "init", "-", "--no-rehash", "bash"}, true},
		{[]string{"pyenv", "init", "-", "bash", "--no-rehash"}, true},
		{[]string{"pyenv", "init", "-", "--no-rehash", "--no-rehash"}, false},
		{[]string{"pyenv", "init"}, false},
		{[]string{"ssh-agent"}, true},
		{[]string{"ssh-agent", "-s"}, true},
		{[]string{"ssh-agent", "-s", "sh", "-c", "id"}, false},
		{[]string{"conda", "shell.bash", "hook"}, true},
		{[]string{"conda", "shell.evil", "hook"}, false},
		{[]string{"conda", "shell.", "hook"}, false},
		{[]string{"fnm", "env", "--shell=zsh", "--use-on-cd"}, true},
		{[]string{"zoxide", "init", "bash", "--cmd", "cd"}, true},
		{[]string{"zoxide", "init", "bash", "--cmd", "c;d"}, false},
		{[]string{"kubectl", "completion", "bash"}, true},
		{[]string{"kubectl", "get", "secrets"}, false},
		{[]string{"direnv", "export", "bash"}, false},
		{[]string{"unknown", "init", "-"}, false},
	} {
		c := &shell.Command{}
		for _, a := range tc.argv {
			c.Args = append(c.Args, shell.Static(a))
		}
		if got := EnvPrinter(c); got != tc.want {
			t.Errorf("EnvPrinter(%q) = %v, want %v", tc.argv, got, tc.want)
		}
	}
	c := &shell.Command{Args: []shell.Word{shell.Static("brew"), {Value: "$X", Dynamic: true}}}
	if EnvPrinter(c) {
		t.Error("a word only known at run time matched a shape")
	}
}
