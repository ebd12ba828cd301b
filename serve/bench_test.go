package serve

import (
	"testing"

	"github.com/safeexec/safeexec/configs"
)

// BenchmarkServeTrue is one client's command stream: create, wait for the
// exit and release a terminal running true, in a real sandbox. Compare
// with the bare bwrap command line in bench/overhead.sh -serve.
func BenchmarkServeTrue(b *testing.B) {
	needBwrap(b)
	w := newWorld(b)
	c := startClient(b, Options{Policy: w.load(configs.Flags{NoNetwork: true}), Environ: w.environ(), Cwd: w.work})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := c.create(map[string]any{"command": "true"})
		c.ok("terminal/wait_for_exit", term(id), nil)
		c.ok("terminal/release", term(id), nil)
	}
}
