package safeexec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/configs"
)

// The README shows the embedded defaults verbatim, so they cannot drift
// from the code. (Its rule table is generated from risk's; risk's
// TestRuleDocs compares it.)
func TestREADMEDocumentsDefaults(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defaults := strings.TrimRight(string(configs.DefaultTOML()), "\n")
	if !strings.Contains(string(readme), "```toml\n"+defaults+"\n```") {
		t.Errorf("README.md does not show configs/default.toml verbatim; paste it into the Configuration section")
	}
}
