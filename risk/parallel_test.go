package risk

import (
	"sync"
	"testing"
)

// TestConcurrent classifies the corpus from several goroutines at once
// (run with -race): the classifier keeps no shared mutable state.
func TestConcurrent(t *testing.T) {
	cases := loadCorpus(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(cases); i += 4 {
				if err := cases[i].check(cases[i].run()); err != nil {
					t.Errorf("%s:%d: %v", cases[i].file, cases[i].line, err)
				}
			}
		}(g)
	}
	wg.Wait()
}
