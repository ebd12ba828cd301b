package netallow

import (
	"os"
	"testing"
)

// TestMain plays two parts. Called as "<test binary> __bridge ..." it is
// the re-executed safeexec inside a sandbox and runs RunBridge. Otherwise it
// runs the tests, on Linux inside a private mount and network namespace
// that give the test domain names (see testenv_linux_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__bridge" {
		os.Exit(RunBridge(os.Args[2:]))
	}
	os.Exit(runTests(m))
}

// requireEnv skips (or, with SAFEEXEC_REQUIRE_SANDBOX=1, fails) a test that
// needs the private namespaces when they could not be made.
func requireEnv(t testing.TB) {
	t.Helper()
	if testEnvErr != nil {
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("test network namespace unavailable: %v", testEnvErr)
		}
		t.Skipf("test network namespace unavailable: %v", testEnvErr)
	}
}
