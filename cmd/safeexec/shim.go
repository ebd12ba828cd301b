package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/safeexec/safeexec/cmd/safeexec/internal/cmdline"
)

// shimName is the shell safeexec was started as, or "" (cmdline.ShimName).
func shimName(argv0 string) string { return cmdline.ShimName(argv0) }

// shim runs the real shell called name with args, through safeexec.
func (e *env) shim(name string, args []string) int {
	real, err := realShell(name, e.getenv("PATH"))
	if err != nil {
		fmt.Fprintf(e.stderr, "safeexec (as %s): %v\n", name, err)
		return 127
	}
	return e.main(append([]string{"safeexec", "--", real}, args...))
}

// realShell finds the shell name in path that is not safeexec itself (nor
// another copy of it), else in /bin or /usr/bin.
func realShell(name, path string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find myself: %w", err)
	}
	dirs := append(filepath.SplitList(path), "/bin", "/usr/bin")
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		if sameBinary(p, self) {
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("no %s other than safeexec in PATH, /bin or /usr/bin", name)
}

// sameBinary reports whether a and b are the same file, or copies of one
// (same size, same first 64 KiB): a copy of safeexec installed as bash
// must not be taken for the real bash.
func sameBinary(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return false
	}
	if os.SameFile(fa, fb) {
		return true
	}
	if fa.Size() != fb.Size() {
		return false
	}
	head := func(p string) []byte {
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
		return b
	}
	ha := head(a)
	return ha != nil && bytes.Equal(ha, head(b))
}
