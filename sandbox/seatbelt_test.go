package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var updateSeatbelt = flag.Bool("update-seatbelt", false, "rewrite the seatbelt golden files")

func seatbeltTestPolicy(mode Mode) *Policy {
	return &Policy{
		Mode:          mode,
		Cwd:           "/Users/dev/proj",
		WritableRoots: []string{"/Users/dev/proj", "/tmp/safeexec-tmp"},
		DenyRead: []string{"/Users/dev/.ssh", "/Users/dev/.aws", "/Users/dev/.npmrc",
			"/Users/dev/Library/Application Support/safeexec", "/Users/dev/.local/state/safeexec"},
		DenyWrite: []string{".git/hooks", ".git/config", ".env", ".envrc", ".bashrc", ".husky", "/Users/dev/.config/safeexec/config.toml"},
		Network:   Network{Enabled: true, ProxyHTTPPort: 53128, ProxySOCKSPort: 51080},
		CacheDir:  "/Users/dev/Library/Caches/safeexec/tools",
	}
}

func TestSeatbeltGolden(t *testing.T) {
	host := seatbeltHost{TmpDir: "/var/folders/xy/abc123/T/safeexec-tmp-42"}
	for _, tc := range []struct {
		name string
		p    *Policy
	}{
		{"strict", seatbeltTestPolicy(Strict)},
		{"compat", seatbeltTestPolicy(Compat)},
		{"permissive", seatbeltTestPolicy(Permissive)},
		{"compat-offline-bare", &Policy{Mode: Compat, Cwd: "/w", WritableRoots: []string{"/w"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile, params, err := seatbeltProfile(tc.p, host)
			if err != nil {
				t.Fatal(err)
			}
			if err := seatbeltLint(profile, params); err != nil {
				t.Fatalf("generated profile fails the checker: %v\n%s", err, profile)
			}
			got := profile + "\n;; parameters\n" + strings.Join(paramLines(params), "\n") + "\n"
			file := filepath.Join("testdata", "seatbelt", tc.name+".sb")
			if *updateSeatbelt {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-seatbelt to create it)", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s (run with -update-seatbelt after checking):\n%s", file, got)
			}
		})
	}
}

func paramLines(params map[string]string) []string {
	var out []string
	for k, v := range params {
		out = append(out, ";; "+k+"="+v)
	}
	sort.Strings(out)
	return out
}

func TestSeatbeltProfileProperties(t *testing.T) {
	profile, params, err := seatbeltProfile(seatbeltTestPolicy(Strict), seatbeltHost{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ROOT_0", "PROTECT_0", "DENY_READ_0", "KEEP_0"} {
		if params[k] == "" {
			t.Errorf("strict: no parameter %s", k)
		}
	}
	if _, ok := params["ROOT_1"]; ok {
		t.Error("strict keeps the second writable root")
	}
	if params["CACHE"] != "/Users/dev/Library/Caches/safeexec/tools" {
		t.Errorf("strict: the cache is not writable: %v", params)
	}
	if params["ROOT_0"] != "/Users/dev/proj" || params["KEEP_0"] != "/Users/dev/proj/.git" {
		t.Errorf("params: %v", params)
	}
	// /tmp is a link on macOS: the profile names the real path.
	_, params, _ = seatbeltProfile(seatbeltTestPolicy(Compat), seatbeltHost{})
	if params["ROOT_1"] != "/private/tmp/safeexec-tmp" {
		t.Errorf("ROOT_1 = %q", params["ROOT_1"])
	}
	for _, bad := range []string{"(allow default)", "(allow network-outbound)", "(allow file-write*)", "/Users/dev"} {
		if strings.Contains(profile, bad) {
			t.Errorf("profile contains %q", bad)
		}
	}
	off := seatbeltTestPolicy(Compat)
	off.Network = Network{}
	profile, _, _ = seatbeltProfile(off, seatbeltHost{})
	if strings.Contains(profile, "network-outbound") {
		t.Error("network off still allows outbound connections")
	}
}

func TestSeatbeltProfileRefuses(t *testing.T) {
	for name, mut := range map[string]func(p *Policy){
		"relative root":          func(p *Policy) { p.WritableRoots = []string{"proj"} },
		"relative deny_read":     func(p *Policy) { p.DenyRead = []string{"~/.ssh"} },
		"escaping deny_write":    func(p *Policy) { p.DenyWrite = []string{"../x"} },
		"unknown mode":           func(p *Policy) { p.Mode = "lax" },
		"network without a port": func(p *Policy) { p.Network = Network{Enabled: true} },
		"port out of range":      func(p *Policy) { p.Network.ProxyHTTPPort = 70000 },
		"NUL in a path":          func(p *Policy) { p.DenyRead = []string{"/a\x00b"} },
	} {
		p := seatbeltTestPolicy(Compat)
		mut(p)
		if _, _, err := seatbeltProfile(p, seatbeltHost{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSeatbeltLintRejects(t *testing.T) {
	params := map[string]string{"ROOT_0": "/w"}
	ok := "(version 1)\n(deny default)\n(allow file-write* (subpath (param \"ROOT_0\")))\n"
	if err := seatbeltLint(ok, params); err != nil {
		t.Fatalf("minimal profile rejected: %v", err)
	}
	for name, tc := range map[string]struct {
		profile string
		params  map[string]string
	}{
		"unbalanced open":      {ok + "(allow process-fork", params},
		"unbalanced close":     {ok + "(allow process-fork))", params},
		"unterminated string":  {ok + "(allow file-read* (literal \"/x))", params},
		"no version":           {"(deny default)\n(allow process-fork)", nil},
		"no deny default":      {"(version 1)\n(allow process-fork)", nil},
		"deny default late":    {"(version 1)\n(allow process-fork)\n(deny default)", nil},
		"allow default":        {ok + "(allow default)", params},
		"unknown operation":    {ok + "(allow process-teleport)", params},
		"unknown filter":       {ok + "(allow file-read* (prefix \"/x\"))", params},
		"missing parameter":    {ok + "(allow file-read* (subpath (param \"HOME\")))", params},
		"unused parameter":     {ok, map[string]string{"ROOT_0": "/w", "EXTRA": "/x"}},
		"relative parameter":   {ok, map[string]string{"ROOT_0": "w"}},
		"unfiltered write":     {ok + "(allow file-write*)", params},
		"unfiltered read":      {ok + "(allow file-read*)", params},
		"unfiltered mach":      {ok + "(allow mach-lookup)", params},
		"unfiltered network":   {ok + "(allow network-outbound)", params},
		"network to any host":  {ok + "(allow network-outbound (remote tcp \"*:443\"))", params},
		"network to any port":  {ok + "(allow network-outbound (remote tcp \"localhost:*\"))", params},
		"network remote ip":    {ok + "(allow network-outbound (remote ip \"localhost:80\"))", params},
		"other top-level form": {ok + "(import \"system.sb\")", params},
		"relative literal":     {ok + "(allow file-read* (literal \"etc\"))", params},
		"signal to anyone":     {ok + "(allow signal (target others))", params},
	} {
		if err := seatbeltLint(tc.profile, tc.params); err == nil {
			t.Errorf("%s: accepted:\n%s", name, tc.profile)
		}
	}
}

func FuzzParseSexps(f *testing.F) {
	f.Add("(version 1)\n(deny default)\n(allow file-read* (regex #\"^/dev/ttys[0-9]+$\"))")
	f.Add("(a \"b\\\"c\" ; comment\n d)")
	f.Fuzz(func(t *testing.T, src string) {
		parseSexps(src)
		seatbeltLint(src, map[string]string{"ROOT_0": "/w"})
	})
}
