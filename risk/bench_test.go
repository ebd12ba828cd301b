package risk

import (
	"strings"
	"testing"
)

// agentCommands are typical commands AI coding agents run.
var agentCommands = []string{
	"npm test",
	"git status",
	"git diff --stat HEAD~1",
	"ls -la src/",
	"go test ./... -run TestFoo -v",
	"cat package.json | jq .scripts",
	"grep -rn \"TODO\" src/ | head -20",
	"cd web && npm run build 2>&1 | tail -50",
	"python3 -m pytest tests/test_api.py -x -q",
	"git add -A && git commit -m \"fix: handle empty input\"",
	"find . -name '*.ts' -not -path './node_modules/*' | xargs wc -l",
	"rm -rf dist && npm run build",
	"curl -s http://localhost:3000/health",
	"sed -i 's/old/new/g' src/config.ts",
	"mkdir -p build && cp -r assets build/",
	"source ~/.claude/shell-snapshots/snapshot-bash-1788557415117-j0hu0n.sh 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'npm run lint' < /dev/null && pwd -P >| /tmp/claude-f8eb-cwd",
}

func BenchmarkClassify(b *testing.B) {
	c := testContext()
	b.ReportAllocs()
	start := cpuTime()
	n := 0
	for b.Loop() {
		ClassifyScript(agentCommands[n%len(agentCommands)], c)
		n++
	}
	reportCPU(b, start, n)
}

// reportCPU adds CPU time per operation and operations per CPU second.
func reportCPU(b *testing.B, start int64, n int) {
	if d := cpuTime() - start; d > 0 && n > 0 {
		per := float64(d) / float64(n)
		b.ReportMetric(per, "cpu-ns/op")
		b.ReportMetric(1e9/per, "ops/cpu-s")
	}
}

func BenchmarkClassifyLargeScript(b *testing.B) {
	var sb strings.Builder
	lines := []string{"echo building $TARGET", "if [ -f x ]; then make -C sub; fi", "cp -r src /tmp/out", "for f in *.go; do gofmt -l \"$f\"; done", "grep -q foo bar.txt && echo yes"}
	for i := 0; sb.Len() < 1<<20-100; i++ {
		sb.WriteString(lines[i%len(lines)])
		sb.WriteByte('\n')
	}
	script := sb.String()
	c := testContext()
	b.SetBytes(int64(len(script)))
	start := cpuTime()
	n := 0
	for b.Loop() {
		v := ClassifyScript(script, c)
		if v.Tier == Safe && len(v.Reasons) == 0 {
			n++
			continue
		}
		n++
	}
	reportCPU(b, start, n)
}
