//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/safeexec/safeexec/approval"
)

// TestAgentApprovalLimits: an approval left for a command never lifts a
// risky verdict, and an expired one is not used.
func TestAgentApprovalLimits(t *testing.T) {
	needBwrap(t)
	bin := binary(t)
	env, dir := hermetic(t)
	env = append(env, "CI=true")
	var state string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			state = filepath.Join(v, "safeexec")
		}
	}
	store := approval.Store{Dir: state}
	run := func(script string) (int, string) {
		cmd := exec.Command(bin, "-c", script)
		cmd.Env, cmd.Dir = env, dir
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if err := store.Grant(dir, "sudo true", "claude", time.Minute); err != nil {
		t.Fatal(err)
	}
	if code, out := run("sudo true"); code != 126 || !strings.Contains(out, "risky") {
		t.Errorf("a risky command with an approval: exit %d, %q", code, out)
	}
	os.Mkdir(filepath.Join(dir, "build"), 0o755)
	past := approval.Store{Dir: state, Now: func() time.Time { return time.Now().Add(-time.Hour) }}
	if err := past.Grant(dir, "rm -rf build", "claude", time.Minute); err != nil {
		t.Fatal(err)
	}
	if code, out := run("rm -rf build"); code != 126 {
		t.Errorf("an expired approval was used: exit %d, %q", code, out)
	}
	if err := store.Grant(dir, "rm -rf build", "claude", time.Minute); err != nil {
		t.Fatal(err)
	}
	if code, out := run("rm -rf build"); code != 0 {
		t.Errorf("a valid approval was not used: exit %d, %q", code, out)
	}
}
