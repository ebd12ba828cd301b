//go:build unix && !darwin

package audit

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestPasswdName(t *testing.T) {
	const db = `# comment
root:x:0:0:root:/root:/bin/bash
+nis::0:0:::
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
broken
alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash
alice2:x:1000:1000::/home/alice2:/bin/sh
`
	for _, c := range []struct {
		uid  int
		want string
	}{{0, "root"}, {1, "daemon"}, {1000, "alice"}, {4242, ""}} {
		if got := passwdName(strings.NewReader(db), c.uid); got != c.want {
			t.Errorf("uid %d: got %q, want %q", c.uid, got, c.want)
		}
	}
}

// TestLookupUserNameAgreesWithGetent compares with the system's own answer
// for the user running the test.
func TestLookupUserNameAgreesWithGetent(t *testing.T) {
	out, err := exec.Command("getent", "passwd", strconv.Itoa(os.Getuid())).Output()
	if err != nil {
		t.Skipf("getent: %v", err)
	}
	want, _, _ := strings.Cut(string(out), ":")
	if got := lookupUserName(); got != want {
		t.Errorf("lookupUserName() = %q, getent says %q", got, want)
	}
}
