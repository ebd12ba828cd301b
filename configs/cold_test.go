package configs

import (
	"sync"
	"testing"
)

func BenchmarkDecodeDefaults(b *testing.B) {
	for b.Loop() {
		defaults.once = sync.Once{}
		if _, err := defaultLayer(); err != nil {
			b.Fatal(err)
		}
	}
}
