package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// verdictJSON is what check --json and a --json run both report about
// the verdict.
type verdictJSON struct {
	Tier    string `json:"tier"`
	Reasons []struct {
		Rule    string `json:"rule"`
		Tier    string `json:"tier"`
		Detail  string `json:"detail"`
		Command string `json:"command"`
	} `json:"reasons"`
	ApprovedBy string `json:"approved_by"`
	Approved   []struct {
		Rule      string `json:"rule"`
		Detail    string `json:"detail"`
		Command   string `json:"command"`
		AllowRule string `json:"allow_rule"`
	} `json:"approved"`
	Sandbox string `json:"sandbox"`
}

// sameverdict TIER [GLOBAL-FLAG…] (-- CMD [ARG…] | -c SCRIPT [ARG…])
// runs the command through the real binary twice, as safeexec check --json
// and as a run (safeexec --json), with the same flags, environment and
// working directory, and fails unless both give the same verdict: tier,
// every reason (rule, tier, detail, command), approval by a rule, and
// sandbox. TIER is the tier both must have (a run of a safe command
// really runs it), or "error": both fail before deciding (a working
// directory that cannot be a project) with the same message and exit code.
func cmdSameVerdict(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("!sameverdict is not supported")
	}
	if len(args) < 3 {
		ts.Fatalf("usage: sameverdict TIER [GLOBAL-FLAG…] (-- CMD [ARG…] | -c SCRIPT [ARG…])")
	}
	want, args := args[0], args[1:]
	i := slices.IndexFunc(args, func(a string) bool { return a == "--" || a == "-c" })
	if i < 0 {
		ts.Fatalf("sameverdict: no -- CMD or -c SCRIPT")
	}
	flags, cmd := args[:i], args[i:]
	if cmd[0] == "-c" && len(cmd) > 2 {
		ts.Fatalf("sameverdict: check takes no script arguments")
	}

	checkArgs := append(append(slices.Clone(flags), "check", "--json"), cmd...)
	runArgs := append(append(slices.Clone(flags), "--json"), cmd...)
	if want == "error" {
		checkErr := ts.Exec("safeexec", checkArgs...)
		msg := strings.TrimSpace(ts.ReadFile("stderr"))
		if checkErr == nil || !strings.HasPrefix(msg, "safeexec: ") {
			ts.Fatalf("safeexec %s: want an error, got %v: %s", strings.Join(checkArgs, " "), checkErr, msg)
		}
		runErr := ts.Exec("safeexec", runArgs...)
		var ran struct {
			ExitCode int    `json:"exit_code"`
			Error    string `json:"error"`
		}
		runOut := ts.ReadFile("stdout")
		if err := json.Unmarshal([]byte(runOut), &ran); err != nil || runErr == nil {
			ts.Fatalf("run: %v, output %q", runErr, runOut)
		}
		if ran.Error != strings.TrimPrefix(msg, "safeexec: ") || runErr.Error() != checkErr.Error() {
			ts.Fatalf("check and run fail differently:\ncheck: %v: %s\nrun:   %v: %s", checkErr, msg, runErr, runOut)
		}
		ts.Logf("error (%v): %s", checkErr, strings.Join(cmd, " "))
		return
	}
	if err := ts.Exec("safeexec", checkArgs...); err != nil {
		ts.Fatalf("safeexec %s: %v\n%s", strings.Join(checkArgs, " "), err, ts.ReadFile("stderr"))
	}
	var checked verdictJSON
	checkOut := ts.ReadFile("stdout")
	if err := json.Unmarshal([]byte(checkOut), &checked); err != nil {
		ts.Fatalf("check output: %v: %q", err, checkOut)
	}

	_ = ts.Exec("safeexec", runArgs...) // a refusal exits non-zero
	var ran verdictJSON
	runOut := ts.ReadFile("stdout")
	if err := json.Unmarshal([]byte(runOut), &ran); err != nil {
		ts.Fatalf("run output: %v: %q\n%s", err, runOut, ts.ReadFile("stderr"))
	}

	if !reflect.DeepEqual(checked, ran) {
		ts.Fatalf("check and run disagree:\ncheck: %s\nrun:   %s", strings.TrimSpace(checkOut), strings.TrimSpace(runOut))
	}
	if checked.Tier != want {
		ts.Fatalf("both say %s, want %s: %s", checked.Tier, want, strings.TrimSpace(checkOut))
	}
	ts.Logf("%s (%s): %s", checked.Tier, checked.Sandbox, strings.Join(cmd, " "))
}
