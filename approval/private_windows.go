package approval

import "io/fs"

const noFollow = 0

// ownedPrivate: on Windows the user's profile directory, where the state
// directory lives, is private by its ACL; modes say nothing.
func ownedPrivate(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink == 0 }
