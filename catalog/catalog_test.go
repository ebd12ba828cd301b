package catalog

import "testing"

// The families are merged at start-up, which panics when two of them
// claim one program; every program has one entry.
func TestFamilies(t *testing.T) {
	n := 0
	for _, fam := range families {
		n += len(fam)
	}
	if len(tools) != n {
		t.Fatalf("%d programs in %d family entries", len(tools), n)
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
