//go:build !unix || darwin

package audit

import "os/user"

// lookupUserName asks the system: on macOS and Windows the accounts are
// not in a file safeexec could read itself.
func lookupUserName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
