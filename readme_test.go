package safeexec_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/configs"
)

// The README shows the embedded defaults verbatim, and names every rule
// the classifier documents, so neither can drift from the code.
func TestREADMEDocumentsDefaultsAndRules(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defaults := strings.TrimRight(string(configs.DefaultTOML()), "\n")
	if !strings.Contains(string(readme), "```toml\n"+defaults+"\n```") {
		t.Errorf("README.md does not show configs/default.toml verbatim; paste it into the Configuration section")
	}
	doc, err := os.ReadFile("risk/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^//\t([a-z0-9-]+)\s+(risky|needs_confirmation)\s`)
	ids := row.FindAllStringSubmatch(string(doc), -1)
	if len(ids) < 20 {
		t.Fatalf("found only %d rule ids in risk/doc.go", len(ids))
	}
	for _, m := range ids {
		if !strings.Contains(string(readme), "| `"+m[1]+"` | "+m[2]+" |") {
			t.Errorf("README.md's rule table lacks %s (%s)", m[1], m[2])
		}
	}
}
