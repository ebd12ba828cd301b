package sandbox

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
)

// workspaceSID is the SID the writable roots of a workspace are granted
// to: S-1-15-3-7362 followed by four sub-authorities hashed from the user,
// the mode and the roots as granted (case-folded, as Windows compares
// paths). Runs of the same workspace share it, so a leftover grant is one
// that the next run of that workspace takes over and removes; a run with
// other roots (another project, another --allow-write) has another SID
// and cannot write through this workspace's grants.
func workspaceSID(user string, mode Mode, roots []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "safeexec workspace\x00%s\x00%s", user, mode)
	for _, r := range roots {
		h.Write([]byte{0})
		h.Write([]byte(strings.ToLower(filepath.Clean(r))))
	}
	return sidFrom(workspaceSIDMark, h.Sum(nil))
}

// newRunSIDString is a SID only this run holds (S-1-15-3-7363-…): the
// run's private temporary directory and the tool cache are granted to it,
// so concurrent runs of one workspace do not share them.
func newRunSIDString() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return sidFrom(runSIDMark, b[:]), nil
}

func sidFrom(mark int, b []byte) string {
	return fmt.Sprintf("S-1-15-3-%d-%d-%d-%d-%d", mark,
		binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]),
		binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:]))
}
