package risk

import "testing"

// The classifier has no credential list of its own: what is a credential
// path is what the context (the policy's deny_read) says, nothing more and
// nothing less.
func TestCredentialPathsComeFromTheContext(t *testing.T) {
	c := &Context{Cwd: "/home/u/p", Home: "/home/u", WritableRoots: []string{"/home/u/p"}, Sandboxed: true, Platform: "linux"}
	scripts := []string{"cat ~/.pgpass", "cat ~/.ssh/id_ed25519", "cat ~/.aws/config", "cat /home/u/.config/gh/hosts.yml"}
	for _, s := range scripts {
		for _, r := range ClassifyScript(s, c).Reasons {
			if r.Rule == "credential-path" {
				t.Errorf("%s: credential-path with an empty list: the classifier has a list of its own", s)
			}
		}
	}
	c.SensitivePaths = []string{"/home/u/.pgpass", "/home/u/.ssh", "/home/u/.aws", "/home/u/.config/gh"}
	for _, s := range scripts {
		if v := ClassifyScript(s, c); v.Tier != Risky {
			t.Errorf("%s: %s, want risky once the context lists it", s, v.Tier)
		}
	}
}
