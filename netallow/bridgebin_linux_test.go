package netallow

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildBridge builds cmd/safeexec-bridge, the bridge on its own, once.
func buildBridge(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "safeexec-bridge")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/safeexec-bridge")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build safeexec-bridge: %v\n%s", err, out)
	}
	return bin
}

// TestBridgeBinaryInBwrap runs clients through the separate
// safeexec-bridge binary, as safeexec does when it is installed next to
// it: the same allowlist holds, and the command's status comes back.
func TestBridgeBinaryInBwrap(t *testing.T) {
	requireBwrap(t)
	bin := buildBridge(t)
	old := bridgePrefix
	bridgePrefix = func(testing.TB) []string { return []string{bin, "--protocol", BridgeProtocol} }
	t.Cleanup(func() { bridgePrefix = old })

	o := startOrigins(t)
	p, _ := startProxy(t, []string{"allowed.test"}, nil)
	for _, tc := range []struct {
		name string
		argv []string
		code int
		want string
	}{
		{"curl plain", []string{"curl", "-sS", "--max-time", "10", "http://allowed.test/bin"}, 0, "origin=allowed host=allowed.test path=/bin"},
		{"curl CONNECT", []string{"curl", "-sSk", "--max-time", "10", "https://allowed.test/bin"}, 0, "origin=allowed-tls host=allowed.test"},
		{"curl denied", []string{"curl", "-sS", "--max-time", "10", "http://denied.test/"}, 0, "safeexec: denied.test is not in the network allowlist"},
		{"exit status", []string{"sh", "-c", "exit 7"}, 7, ""},
		{"not found", []string{"no-such-command-here"}, 127, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := sandboxed(t, p, "", tc.argv...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.code, out, tc.want, errOut)
			}
		})
	}
	o.assertUntouched(t, o.denied, o.deniedTLS)
}

// TestBridgeBinaryProtocol: a bridge asked for another protocol version
// (a safeexec-bridge from another build) refuses to run anything.
func TestBridgeBinaryProtocol(t *testing.T) {
	bin := buildBridge(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--protocol", "0", "--http", "/nonexistent.sock", "--", "touch", filepath.Join(dir, "ran"))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || !strings.Contains(string(out), "same build") {
		t.Errorf("exit %v, output %q; want 125 and a message naming the mismatch", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}
