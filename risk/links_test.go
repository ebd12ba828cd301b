package risk

import (
	"io/fs"
	"testing"
)

// Symbolic links that exist on disk inside the writable roots are
// followed: a path through one is judged where it leads.
func TestLinksOnDisk(t *testing.T) {
	links := map[string]string{
		testCwd + "/keys":         "/home/user/.ssh",
		testCwd + "/docs/up":      "../..",
		testCwd + "/cfg":          "/home/user/.aws/credentials",
		testCwd + "/hop":          "keys",
		"/tmp/out":                "/home/user/.ssh",
		testCwd + "/assets":       "/usr/share/doc",
		"/home/user/.ssh/id_link": "/etc/hostname", // outside the roots: not asked
	}
	asked := map[string]bool{}
	c := testContext()
	c.Readlink = func(p string) (string, error) {
		asked[p] = true
		if t, ok := links[p]; ok {
			return t, nil
		}
		switch p {
		case testCwd + "/docs", testCwd + "/src":
			return "", fs.ErrInvalid // a directory, not a link
		}
		return "", fs.ErrNotExist
	}
	for _, tc := range []struct {
		cmd  string
		tier Tier
	}{
		{"cat keys/id_rsa", Risky},
		{"cat hop/id_rsa", Risky},
		{"cat ./docs/up/.ssh/id_rsa", Risky},
		{"cat cfg", Risky},
		{"tar czf /tmp/x.tgz keys", Risky},
		{"cat /tmp/out/id_rsa", Risky},
		{"cat assets/README", Safe},
		{"cat src/main.go", Safe},
		{"rm keys", Safe},
		{"echo x > keys/authorized_keys", Risky},
		{"echo x > assets/x", Risky},
		{"echo x > src/x", Safe},
		{"rm -f keys", Safe},
	} {
		v := ClassifyScript(tc.cmd, c)
		if v.Tier != tc.tier {
			t.Errorf("%s: %s, want %s (%v)", tc.cmd, v.Tier, tc.tier, v.Reasons)
		}
	}
	if asked["/home/user/.ssh/id_link"] || asked["/usr"] || asked["/home"] {
		t.Errorf("links outside the roots were read: %v", asked)
	}
}
