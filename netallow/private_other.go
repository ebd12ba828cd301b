//go:build !unix

package netallow

import "os"

// checkPrivate has nothing to check where permission bits do not exist;
// the directory's ACL, inherited from its parent, decides who can reach
// the sockets (see the Limits in the package documentation).
func checkPrivate(dir string, fi os.FileInfo) error { return nil }
