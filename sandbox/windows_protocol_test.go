package sandbox

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var updateWindows = flag.Bool("update-windows", false, "rewrite the Windows helper golden files")

func windowsTestRequests() map[string]*helperRequest {
	p := &Policy{
		WritableRoots: []string{`C:\Users\dev\proj`, `C:\Users\dev\AppData\Local\Temp\safeexec-1`},
		DenyRead:      []string{`C:\Users\dev\.ssh`, `C:\Users\dev\.aws`},
		DenyWrite:     []string{`.git\hooks`, `.git\config`, `.env`},
		Network:       Network{Enabled: true, ProxyHTTPPort: 53128, ProxySOCKSPort: 51080},
		Limits:        Limits{Processes: 64},
		CacheDir:      `C:\Users\dev\AppData\Local\safeexec\cache`,
	}
	compat := &helperRequest{Mode: Compat, Cwd: `C:\Users\dev\proj`, Policy: helperPolicyOf(p),
		Argv: []string{"npm", "test", "--", "a b", `"quoted"`}}
	compat.Policy.TempDir = `C:\Users\dev\AppData\Local\Temp\safeexec-tmp-42`
	strict := &helperRequest{Mode: Strict, Cwd: `C:\w`, Policy: helperPolicyOf(&Policy{WritableRoots: []string{`C:\w`}}),
		Argv: []string{"cmd.exe", "/c", "echo hi"}}
	strict.Policy.TimeoutMS = 5000
	stream := &helperRequest{Mode: Permissive, Cwd: `C:\w`, Policy: helperPolicyOf(&Policy{}),
		Argv: []string{"go", "test", "./..."}, Inherit: true, AnswerFile: `C:\Users\dev\AppData\Local\Temp\se-ans\answer.json`}
	stream.Policy.SID = "S-1-15-3-7362-1111-2222-3333-4444"
	return map[string]*helperRequest{"request-compat": compat, "request-strict-timeout": strict, "request-stream": stream}
}

func TestHelperRequestGolden(t *testing.T) {
	for name, req := range windowsTestRequests() {
		t.Run(name, func(t *testing.T) {
			args, err := req.args()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(args, "", "  ")
			got = append(got, '\n')
			file := filepath.Join("testdata", "windows", name+".json")
			if *updateWindows {
				os.WriteFile(file, got, 0o644)
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-windows to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs:\n%s", file, got)
			}
			back, err := parseHelperArgs(args)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, req) {
				t.Errorf("round trip:\n got %+v\nwant %+v", back, req)
			}
		})
	}
}

func TestHelperAnswerGolden(t *testing.T) {
	a := helperAnswer{ExitCode: 3, Stdout: "out\n", Stderr: "bad \xff byte\n", TimedOut: true}
	got := encodeHelperAnswer(a)
	file := filepath.Join("testdata", "windows", "answer.json")
	if *updateWindows {
		os.WriteFile(file, got, 0o644)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("answer differs:\n%s", got)
	}
	back, err := decodeHelperAnswer(got)
	if err != nil || back.ExitCode != 3 || !back.TimedOut || back.Stderr != "bad \uFFFD byte\n" {
		t.Errorf("decode: %+v %v", back, err)
	}
}

func TestHelperProtocolRejects(t *testing.T) {
	good := []string{"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{"writable_roots":[]}`, "--", "x"}
	if _, err := parseHelperArgs(good); err != nil {
		t.Fatalf("good request: %v", err)
	}
	for name, args := range map[string][]string{
		"no run":          {"exec", "--mode", "compat"},
		"no command":      {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{}`, "--"},
		"no separator":    {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{}`, "x"},
		"unknown mode":    {"run", "--mode", "lax", "--cwd", `C:\w`, "--policy-json", `{}`, "--", "x"},
		"missing cwd":     {"run", "--mode", "compat", "--policy-json", `{}`, "--", "x"},
		"missing policy":  {"run", "--mode", "compat", "--cwd", `C:\w`, "--", "x"},
		"unknown key":     {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{"writable_root":[]}`, "--", "x"},
		"bad json":        {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{`, "--", "x"},
		"trailing json":   {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{} {}`, "--", "x"},
		"twice":           {"run", "--mode", "compat", "--mode", "strict", "--cwd", `C:\w`, "--policy-json", `{}`, "--", "x"},
		"unknown option":  {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{}`, "--yolo", "1", "--", "x"},
		"stdio other":     {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{}`, "--stdio", "pipe", "--", "x"},
		"inherit no file": {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{}`, "--stdio", "inherit", "--", "x"},
		"negative time":   {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{"timeout_ms":-1}`, "--", "x"},
		"foreign sid":     {"run", "--mode", "compat", "--cwd", `C:\w`, "--policy-json", `{"sid":"S-1-5-21-1-2-3-1000"}`, "--", "x"},
		"dangling value":  {"run", "--mode"},
	} {
		if _, err := parseHelperArgs(args); err == nil {
			t.Errorf("%s: accepted %q", name, args)
		}
	}
	for _, bad := range []string{``, `{}`, `{"exit_code":0}`, `{"exit_code":0,"stdout":"","stderr":""}`, `[1]`} {
		if _, err := decodeHelperAnswer([]byte(bad)); err == nil {
			t.Errorf("answer %q accepted", bad)
		}
	}
}
