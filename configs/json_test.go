package configs

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestJSONMatchesTOML: the JSON rendering holds exactly what `config show`
// prints, under the same keys.
func TestJSONMatchesTOML(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.home, ".config", "safeexec", "config.toml"), "mode = \"strict\"\n[limits]\ntimeout = \"90s\"\nprocesses = 7\n[rules]\nallow = [\"make test\"]\n")
	e, err := Load(f.opts())
	if err != nil {
		t.Fatal(err)
	}
	body, err := e.TOML()
	if err != nil {
		t.Fatal(err)
	}
	var fromTOML map[string]any
	if err := toml.Unmarshal(body, &fromTOML); err != nil {
		t.Fatal(err)
	}
	viaJSON := func(v any) map[string]any {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	doc, err := e.JSON()
	if err != nil {
		t.Fatal(err)
	}
	a, b := viaJSON(fromTOML), viaJSON(json.RawMessage(doc))
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		t.Errorf("TOML %s\nJSON %s", ja, jb)
	}
	if b["mode"] != "strict" || !strings.Contains(string(mustJSON(t, b["limits"])), `"timeout":"1m30s"`) {
		t.Errorf("JSON %v", b)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
