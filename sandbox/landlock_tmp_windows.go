//go:build windows

package sandbox

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// pidAlive reports whether a process with that pid still runs.
func pidAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == 259 // STILL_ACTIVE
}

// ownedPrivate: the temporary directory on Windows is the user's own
// (%TEMP% under the profile), so a directory there is taken as ours.
func ownedPrivate(fi fs.FileInfo) bool { return fi.IsDir() }
