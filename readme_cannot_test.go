package safeexec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/sandbox"
)

// The README lists, per backend, every sentence doctor may print about
// what the backend cannot enforce, word for word.
func TestREADMESaysWhatBackendsCannotEnforce(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	all := sandbox.AllCannotEnforce()
	if len(all["bwrap"]) < 3 || len(all["landlock"]) < 3 {
		t.Fatalf("too few sentences: %v", all)
	}
	for backend, sentences := range all {
		head := "- **" + backend + "**:\n"
		i := strings.Index(string(readme), head)
		if i < 0 {
			t.Errorf("README.md has no %q list of what it cannot enforce", backend)
			continue
		}
		for _, s := range sentences {
			if !strings.Contains(string(readme[i:]), "\n  - "+s+"\n") {
				t.Errorf("README.md's %s list lacks: %s", backend, s)
			}
		}
	}
}
