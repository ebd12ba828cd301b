package risk

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/safeexec/safeexec/shell"
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

// TestInterleaved classifies the corpus sequentially, then again from
// several goroutines at once, each in its own order, so that different
// commands in different contexts (platforms, homes, credential lists,
// projects) are classified side by side: every verdict must be, in full,
// the one of a program parsed into memory of its own. Pooled and cached
// state (the walker's, the prepared credential lists) must never carry
// one command's state into another's verdict. Run with -race.
func TestInterleaved(t *testing.T) {
	cases := loadCorpus(t)
	// The verdicts of programs of their own (shell.Parse, not the scoped
	// parse into pooled memory that ClassifyScript uses), then the pooled
	// ones one after another: equal.
	want := make([]Verdict, len(cases))
	for i, c := range cases {
		opts := newEnv(c.ctx).shellOptions()
		if c.argv {
			want[i] = Classify(shell.ParseArgv(strings.Fields(c.cmd), opts), c.ctx)
		} else {
			want[i] = Classify(shell.Parse(c.cmd, opts), c.ctx)
		}
	}
	for i, c := range cases {
		if got := c.run(); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s:%d: %s\n\tpooled: %+v\n\town program: %+v", c.file, c.line, c.cmd, got, want[i])
		}
	}
	const workers = 4
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			// Each worker walks the corpus with its own stride and start.
			stride := []int{1, 7, 13, 31}[g]
			for k := 0; k < len(cases); k++ {
				i := (g*len(cases)/workers + k*stride) % len(cases)
				if got := cases[i].run(); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("%s:%d: %s\n\tconcurrent: %+v\n\tsequential: %+v", cases[i].file, cases[i].line, cases[i].cmd, got, want[i])
				}
			}
		}(g)
	}
	wg.Wait()
}
