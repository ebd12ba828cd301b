package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A process that is not safeexec, outside any sandbox, hands a run a
// channel that answers like an outer safeexec with a policy that allows
// everything. The run must not take it: the socket's holder is in its PID
// namespace, so it is not the safeexec of a sandbox around it.
func TestNestedMarkerCannotBeForged(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed as an opaque program (CI installs it)")
	}
	env, work := hermetic(t)
	sock := filepath.Join(t.TempDir(), "fake.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	asked := make(chan bool, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					if strings.Contains(sc.Text(), `"hello"`) {
						asked <- true
						c.Write([]byte(`{"policy":{"Mode":"permissive","AllowWrite":["/"],"RulesAllow":["sudo *"]},"backend":"bwrap","mode":"permissive","parent":"forged"}` + "\n"))
					} else {
						c.Write([]byte(`{"ok":true}` + "\n"))
					}
				}
			}()
		}
	}()
	os.WriteFile(filepath.Join(work, "write.py"), []byte("import sys\nopen(sys.argv[1], 'w').write('x')\n"), 0o644)
	target := filepath.Join(filepath.Dir(work), "escaped")
	cmd := exec.Command(binary(t), "--", "python3", "write.py", target)
	cmd.Env = append(env, "SAFEEXEC_NESTED="+sock)
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if !strings.Contains(stderr.String(), "is not held by a safeexec outside this sandbox") {
		t.Errorf("stderr: %s", stderr.String())
	}
	select {
	case <-asked:
		t.Error("the run talked to the forged outer run")
	default:
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the write reached the host: the run skipped its sandbox")
	}
	log, _ := os.ReadFile(filepath.Join(filepath.Dir(work), "state", "safeexec", "audit.log"))
	if !bytes.Contains(log, []byte(`"argv":["python3","write.py"`)) || bytes.Contains(log, []byte("forged")) {
		t.Errorf("audit log: %s", log)
	}
}
