//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/configs"
)

// Every home entry of the default credential list is masked by the
// sandbox, file or directory: a fake credential at each place, and one
// command that reads them all from a list known only at run time (so the
// classifier cannot refuse it), under bwrap and Landlock.
func TestDefaultCredentialsMasked(t *testing.T) {
	bin := binary(t)
	src := string(configs.DefaultTOML())
	i := strings.Index(src, "\ndeny_read = [")
	body := src[i : i+strings.Index(src[i:], "\n]")]
	var rels []string
	for _, m := range regexp.MustCompile(`(?m)^\s*"~/([^"]+)",`).FindAllStringSubmatch(body, -1) {
		rels = append(rels, m[1])
	}
	if len(rels) < 50 {
		t.Fatalf("only %d home entries in deny_read", len(rels))
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "bwrap" {
				needBwrap(t)
			}
			env, dir := hermetic(t)
			home := strings.TrimPrefix(env[1], "HOME=")
			var list []string
			for n, rel := range rels {
				p := filepath.Join(home, rel)
				secret := "cred-secret-" + rel + "\n"
				// Alternate: the entry as a file, as a directory with a
				// file in it.
				if n%2 == 0 {
					os.MkdirAll(filepath.Dir(p), 0o700)
					if err := os.WriteFile(p, []byte(secret), 0o600); err != nil {
						t.Fatal(err)
					}
					list = append(list, rel)
				} else {
					os.MkdirAll(p, 0o700)
					if err := os.WriteFile(filepath.Join(p, "token"), []byte(secret), 0o600); err != nil {
						t.Fatal(err)
					}
					list = append(list, rel+"/token")
				}
			}
			os.WriteFile(filepath.Join(dir, "list.txt"), []byte(strings.Join(list, "\n")+"\n"), 0o644)
			cmd := exec.Command(bin, "--yes", "--sandbox", backend, "-c",
				`l="$PWD/list.txt"; cd "$HOME" && tr '\n' '\0' < "$l" | xargs -0 cat 2>/dev/null; echo; echo read-all`)
			cmd.Env, cmd.Dir = env, dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), "read-all") {
				t.Fatalf("the command did not finish:\n%s%s", out.String(), errb.String())
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.Contains(line, "cred-secret-") {
					t.Errorf("readable inside the sandbox: %s", line)
				}
			}
		})
	}
}
