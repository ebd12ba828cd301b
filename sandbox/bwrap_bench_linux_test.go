package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// benchPolicy is the default policy shape: a git project as the working
// directory, the default deny lists under a home with a few credentials.
func benchPolicy(b *testing.B) *Policy { return benchPolicyT(b) }

func benchPolicyT(b testing.TB) *Policy {
	dir, home := b.TempDir(), b.TempDir()
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("//registry/:_authToken=x\n"), 0o600)
	var deny []string
	for _, n := range []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker", ".kube", ".npmrc", ".netrc",
		".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub", ".gitconfig.local",
		".bash_history", ".zsh_history", ".env", ".credentials", ".password-store", ".config/safeexec", ".local/state/safeexec"} {
		deny = append(deny, filepath.Join(home, n))
	}
	return &Policy{
		Mode: Compat, Cwd: dir, WritableRoots: []string{dir, "/tmp"},
		DenyRead:  deny,
		DenyWrite: []string{".env", ".envrc", ".git/hooks", ".git/config", ".safeexec.toml", ".bashrc", ".zshrc", ".profile", ".mcp.json"},
	}
}

func benchBackend(b *testing.B, p *Policy) {
	be := bwBackend(b)
	cmd := &Command{Argv: []string{"/bin/true"}, Env: bwEnv}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		proc, err := be.Start(p, cmd)
		if err != nil {
			b.Fatal(err)
		}
		if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
			b.Fatalf("%+v %v", st, err)
		}
	}
}

// BenchmarkBwrapTrue is Start+Wait of /bin/true through the backend.
func BenchmarkBwrapTrue(b *testing.B) { benchBackend(b, benchPolicy(b)) }

func BenchmarkBwrapTrueStrict(b *testing.B) {
	p := benchPolicy(b)
	p.Mode = Strict
	benchBackend(b, p)
}

// BenchmarkBwrapBare runs bwrap by hand with the same mounts and
// namespaces (no seccomp, status or sync descriptors): the baseline for
// BenchmarkBwrapTrue.
func BenchmarkBwrapBare(b *testing.B) { benchBare(b, benchPolicy(b)) }

func BenchmarkBwrapBareStrict(b *testing.B) {
	p := benchPolicy(b)
	p.Mode = Strict
	benchBare(b, p)
}

func benchBare(b *testing.B, p *Policy) {
	be := bwBackend(b).(*bwrapBackend)
	host := &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: osHostFS{}}
	plan, err := bwrapArgs(p, host, bwrapFDs{}, []string{"/bin/true"}, bwEnv)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := exec.Command(be.path, plan.Args...)
		c.Env = plan.Env
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBwrapOverhead alternates a run through the backend with the
// same bare bwrap command, so that load on the machine hits both alike,
// and reports both medians and their ratio.
func BenchmarkBwrapOverhead(b *testing.B)       { benchOverhead(b, Compat) }
func BenchmarkBwrapOverheadStrict(b *testing.B) { benchOverhead(b, Strict) }

func benchOverhead(b *testing.B, m Mode) {
	p := benchPolicy(b)
	p.Mode = m
	be := bwBackend(b).(*bwrapBackend)
	host := &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: osHostFS{}}
	plan, err := bwrapArgs(p, host, bwrapFDs{}, []string{"/bin/true"}, bwEnv)
	if err != nil {
		b.Fatal(err)
	}
	cmd := &Command{Argv: []string{"/bin/true"}, Env: bwEnv}
	var ours, bare []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		proc, err := be.Start(p, cmd)
		if err != nil {
			b.Fatal(err)
		}
		if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
			b.Fatalf("%+v %v", st, err)
		}
		ours = append(ours, time.Since(t0))

		t1 := time.Now()
		c := exec.Command(be.path, plan.Args...)
		c.Env = plan.Env
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t1))
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / float64(time.Millisecond)
	}
	mo, mb := med(ours), med(bare)
	b.ReportMetric(mo, "ms-backend")
	b.ReportMetric(mb, "ms-bare")
	b.ReportMetric(mo/mb, "ratio")
}

// BenchmarkBwrapPlan is the policy-to-arguments step on the real file
// system.
func BenchmarkBwrapPlan(b *testing.B) {
	p := benchPolicy(b)
	host := &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: osHostFS{}}
	for i := 0; i < b.N; i++ {
		if _, err := bwrapArgs(p, host, bwrapFDs{Status: 3, Seccomp: 4, Sync: 5}, []string{"/bin/true"}, bwEnv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBwrapSweep is the look after a run at the default policy's
// missing protected paths, when the command created none of them.
func BenchmarkBwrapSweep(b *testing.B) {
	p := benchPolicy(b)
	host := &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: osHostFS{}}
	plan, err := bwrapArgs(p, host, bwrapFDs{}, []string{"/bin/true"}, bwEnv)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(plan.Watch)), "watched")
	for i := 0; i < b.N; i++ {
		sweepCreated(plan.Watch, nil)
	}
}

// BenchmarkDetect is the backend choice made before every command.
func BenchmarkDetect(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, _, err := Detect("auto"); err != nil {
			b.Skip(err)
		}
	}
}
