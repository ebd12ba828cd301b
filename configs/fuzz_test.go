package configs

import (
	"errors"
	"reflect"
	"sync"
	"testing"
)

// FuzzParse feeds arbitrary files through decoding and both kinds of
// layering: nothing may panic, every failure is an *Error, and a project
// layer never loosens what the trusted layers set.
func FuzzParse(f *testing.F) {
	f.Add(string(defaultTOML))
	f.Add("mode = \"strict\"\n[filesystem]\nallow_write = [\"~\", \"$HOME/x\", \"<core.hooksPath>\"]\n")
	f.Add("[limits]\nfile_size = \"1G\"\ntimeout = 30\n[network]\nallowed_domains = [\"*.example.com:*\"]\n")
	f.Add("[[x]]\na = [[1], {b = 2}]\n")
	f.Add("[env]\nkeep = { \"*\" = [\"A\"], \"npx -y @s/x\" = [\"GITHUB_TOKEN\"] }\n")
	f.Add("[filesystem]\ndeny_read = [\"!~/.ssh\", \"${NOPE}\"]\n")
	f.Fuzz(func(t *testing.T, data string) {
		p, err := parse("/fuzz/config.toml", []byte(data))
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not *Error", err, err)
			}
			return
		}
		def, err := defaultLayer()
		if err != nil {
			t.Fatal(err)
		}
		newLoader := func() *loader {
			l := &loader{
				e: &Effective{ConfigDir: "/h/.config/safeexec", StateDir: "/h/.local/state/safeexec"},
				x: &expander{cwd: "/w", home: "/h", getenv: func(string) string { return "" },
					configDir: "/h/.config/safeexec", stateDir: "/h/.local/state/safeexec", hooksDone: true},
			}
			if err := l.applyTrusted(def); err != nil {
				t.Fatal(err)
			}
			return l
		}
		l := newLoader()
		before := *l.e
		if err := l.applyProject(p); err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("project error %v (%T) is not *Error", err, err)
			}
			return
		}
		e := l.e
		if modeRank(e.Mode) > modeRank(before.Mode) || e.Backend != before.Backend || e.NetworkEnabled && !before.NetworkEnabled ||
			e.PromptChannel != before.PromptChannel && e.PromptChannel != "none" || len(e.RulesAllow) != len(before.RulesAllow) {
			t.Fatalf("project file loosened a scalar: %+v", e)
		}
		for _, w := range e.AllowWrite {
			if !coveredPath(w, before.AllowWrite) {
				t.Fatalf("project file added writable root %q", w)
			}
		}
		for _, d := range e.AllowedDomains {
			if !coveredDomain(d, before.AllowedDomains) {
				t.Fatalf("project file added domain %q", d)
			}
		}
		for _, lists := range [][2][]string{{before.DenyRead, e.DenyRead}, {before.DenyWrite, e.DenyWrite}, {before.EnvStrip, e.EnvStrip}, {before.EnvStripSuffixes, e.EnvStripSuffixes}} {
			for _, s := range lists[0] {
				if !containsFold(lists[1], s) {
					t.Fatalf("project file removed %q", s)
				}
			}
		}
		for _, k := range e.EnvKeep {
			if !containsFold(before.EnvKeep, k) {
				t.Fatalf("project file kept %q", k)
			}
		}
		if !reflect.DeepEqual(e.EnvKeepFor, before.EnvKeepFor) {
			t.Fatalf("project file changed what commands keep: %+v -> %+v", before.EnvKeepFor, e.EnvKeepFor)
		}
		bl, el := before.Limits, e.Limits
		for _, pair := range [][2]uint64{{bl.Processes, el.Processes}, {bl.OpenFiles, el.OpenFiles}, {bl.FileSize, el.FileSize}, {bl.CPUSeconds, el.CPUSeconds}, {uint64(bl.Timeout), uint64(el.Timeout)}} {
			if pair[0] != 0 && (pair[1] == 0 || pair[1] > pair[0]) {
				t.Fatalf("project file raised a limit: %+v -> %+v", bl, el)
			}
		}
		// The same file as the user's: must not panic either.
		if err := newLoader().applyTrusted(p); err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("user error %v (%T) is not *Error", err, err)
			}
		}
	})
}

func BenchmarkDecodeDefaults(b *testing.B) {
	for b.Loop() {
		defaults.once = sync.Once{}
		if _, err := defaultLayer(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCold includes decoding the embedded defaults, as the first
// Load of a process does.
func BenchmarkLoadCold(b *testing.B) {
	root := b.TempDir()
	o := Options{Cwd: root, Home: root, Getenv: env{}.get}
	for b.Loop() {
		defaults.once = sync.Once{}
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}
