//go:build unix && !darwin

package audit

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// passwdFile is the password database lookupUserName reads; tests point it
// elsewhere.
var passwdFile = "/etc/passwd"

// lookupUserName finds the calling user's name in /etc/passwd itself: a
// static build has no libc name service to ask, and asking one (LDAP,
// sssd) on every run costs more than the whole record. An account that
// only a network directory knows is not found here; the caller then falls
// back to the environment.
func lookupUserName() string {
	f, err := os.Open(passwdFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	return passwdName(io.LimitReader(f, 16<<20), os.Getuid())
}

// passwdName returns the name of the first entry of a passwd(5) file with
// the given uid.
func passwdName(r io.Reader, uid int) string {
	want := strconv.Itoa(uid)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '+' || line[0] == '-' {
			continue // NIS compatibility entries name no account here
		}
		name, rest, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			continue
		}
		_, rest, ok = strings.Cut(rest, ":") // password
		if !ok {
			continue
		}
		id, _, _ := strings.Cut(rest, ":")
		if id == want {
			return name
		}
	}
	return ""
}
