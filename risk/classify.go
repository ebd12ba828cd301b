package risk

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// ClassifyScript judges a shell script (safeexec -c SCRIPT, safeexec
// SCRIPT). c may be nil: the zero Context, judged as if no sandbox were
// active.
func ClassifyScript(script string, c *Context) (v Verdict) {
	if c == nil {
		c = &Context{}
	}
	r := newRun(c)
	shell.ParseScoped(script, r.env.shellOptions(), func(prog *shell.Program) {
		v = r.classify(prog)
	})
	r.release()
	return v
}

// ClassifyArgv judges an argv run directly (safeexec -- CMD ARG…): argv[0]
// is the command and its words are not parsed by a shell, but a shell or
// wrapper it starts (bash -c '…', env, sudo) is followed as usual.
func ClassifyArgv(argv []string, c *Context) (v Verdict) {
	if c == nil {
		c = &Context{}
	}
	r := newRun(c)
	shell.ParseArgvScoped(argv, r.env.shellOptions(), func(prog *shell.Program) {
		v = r.classify(prog)
	})
	r.release()
	return v
}

// Classify judges an analysed program.
func Classify(prog *shell.Program, c *Context) Verdict {
	if c == nil {
		c = &Context{}
	}
	return classify(prog, newEnv(c))
}

func classify(prog *shell.Program, e *env) Verdict {
	return (&judge{env: e}).classify(prog)
}

// run is the state of one classification, taken from a pool: the
// prepared context and the judge. Nothing of it outlives the call but
// the verdict, which holds no memory of the run.
type run struct {
	env   env
	judge judge
}

var runPool = sync.Pool{New: func() any { return new(run) }}

func newRun(c *Context) *run {
	r := runPool.Get().(*run)
	r.env.init(c)
	r.judge.env = &r.env
	return r
}

// release clears the run and returns it to the pool. The table of
// reasons already seen is kept, emptied, when it is small.
func (r *run) release() {
	seen := r.judge.seen
	readScript, writable := r.env.readScriptFn, r.env.writableFn
	*r = run{}
	if len(seen) <= 64 {
		clear(seen)
		r.judge.seen = seen
	}
	// The method values are bound to r.env, which the next run reuses.
	r.env.readScriptFn, r.env.writableFn = readScript, writable
	runPool.Put(r)
}

func (r *run) classify(prog *shell.Program) Verdict {
	return r.judge.classify(prog)
}

func (j *judge) classify(prog *shell.Program) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			j.hit(nil, ruleParseError, "internal error while classifying: %v", r)
			v = j.verdict(prog)
		}
	}()
	j.program(prog)
	return j.verdict(prog)
}

func (e *env) shellOptions() shell.Options {
	o := shell.Options{Home: e.home, Cwd: e.cwd, Env: e.c.Env, FoldNames: e.fold || e.platformKey() == "windows",
		Tools: catalog.Tools, Vars: catalog.Vars, Programs: knownProgram, Dialect: e.c.Dialect}
	if e.c.ReadScript != nil {
		if e.readScriptFn == nil {
			e.readScriptFn = e.readScript
		}
		o.ReadScript = e.readScriptFn
	}
	if len(e.roots) > 0 {
		if e.writableFn == nil {
			e.writableFn = e.writable
		}
		o.Writable = e.writableFn
	}
	return o
}

// writable reports whether p lies in a writable root.
func (e *env) writable(p string) bool {
	_, ok := e.inRoot(p)
	return ok
}

// maxScriptRead is the largest local script the classifier reads.
const maxScriptRead = shell.MaxScriptFile

var errOutsideRoots = errors.New("outside the allowed roots")

// readScript reads a local script only when it lies inside a writable
// root (or the working directory) and is small.
func (e *env) readScript(p string) ([]byte, error) {
	_, ok := e.inRoot(p)
	if !ok && e.cwd != "" && under(p, e.cwd) {
		ok = true
	}
	for _, d := range e.c.ScriptDirs {
		ok = ok || under(p, d)
	}
	if !ok {
		return nil, errOutsideRoots
	}
	if _, sens := e.isSensitive(p); sens {
		return nil, errors.New("a credential path")
	}
	b, err := e.c.ReadScript(p)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if len(b) > maxScriptRead {
		return nil, fmt.Errorf("larger than %d bytes", maxScriptRead)
	}
	return b, nil
}

// judge accumulates the reasons for one verdict.
type judge struct {
	env     *env
	links   map[string]string // symbolic links the script creates
	reasons []Reason
	seen    map[string]bool
	// scanDepth bounds interpreter code that contains more code.
	scanDepth int
	// capTier, when set, caps findings (the flattened interpreter scan
	// only ever asks for confirmation).
	capTier Tier
	capped  bool
	// dropped counts reasons past maxReasons that did not raise the
	// tier; keptTier is the highest tier kept.
	dropped  int
	keptTier Tier
}

// maxReasons bounds the reasons kept for one verdict (a huge script could
// otherwise produce an audit record of megabytes).
const maxReasons = 200

func (j *judge) add(r Reason) {
	if j.capped && r.Tier > j.capTier {
		r.Tier = j.capTier
	}
	key := r.Rule + "\x00" + r.Command + "\x00" + r.Detail
	if j.seen[key] {
		return
	}
	if j.seen == nil {
		j.seen = make(map[string]bool)
	}
	j.seen[key] = true
	if len(j.reasons) >= maxReasons && r.Tier <= j.keptTier {
		j.dropped++
		return
	}
	if r.Tier > j.keptTier {
		j.keptTier = r.Tier
	}
	j.reasons = append(j.reasons, r)
}

// hit records a finding of a rule about a command (nil for the whole
// program); its tier is the rule's.
func (j *judge) hit(c *shell.Command, r ruleID, format string, args ...any) {
	j.hitAt(c, r, rules[r].Tier, format, args...)
}

// hitAt records a finding that asks for less than its rule's tier (eval
// of run-time text inside a local script file); never for more.
func (j *judge) hitAt(c *shell.Command, r ruleID, t Tier, format string, args ...any) {
	cmd := ""
	if c != nil {
		cmd = render(c)
	}
	j.add(Reason{Rule: rules[r].ID, Tier: min(t, rules[r].Tier), Detail: fmt.Sprintf(format, args...), Command: cmd})
}

// hitPipe is hit for findings about what a pipe feeds a command: the
// reason shows the whole pipeline.
func (j *judge) hitPipe(c *shell.Command, r ruleID, format string, args ...any) {
	cmd := render(c)
	if c.Stdin.Kind == shell.InputPipe && len(c.Stdin.Upstream) > 0 && len(c.Stdin.Upstream) < 8 {
		var parts []string
		for _, u := range c.Stdin.Upstream {
			parts = append(parts, render(u))
		}
		cmd = strings.Join(append(parts, cmd), " | ")
		if len(cmd) > 400 {
			cmd = cmd[:397] + "..."
		}
	}
	j.add(Reason{Rule: rules[r].ID, Tier: rules[r].Tier, Detail: fmt.Sprintf(format, args...), Command: cmd})
}

// render is the normalised command shown in reasons, bounded in size.
func render(c *shell.Command) string {
	s := c.String()
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

func (j *judge) program(prog *shell.Program) {
	j.links = prog.Links
	for _, is := range prog.Issues {
		switch is.Kind {
		case shell.TooComplex:
			j.hit(nil, ruleTooComplex, "%s", is.Detail)
		default:
			j.hit(nil, ruleParseError, "cannot parse: %s", is.Detail)
		}
	}
	for _, c := range prog.Commands {
		j.command(c)
	}
	if !j.env.c.Sandboxed {
		j.hit(nil, ruleNoSandbox, "no sandbox is active: every command needs confirmation")
	}
	j.userRules(prog)
}

func (j *judge) verdict(prog *shell.Program) Verdict {
	if j.dropped > 0 {
		j.reasons = append(j.reasons, Reason{Rule: ruleTooComplex.String(), Tier: rules[ruleTooComplex].Tier,
			Detail: fmt.Sprintf("%d more findings not listed", j.dropped)})
	}
	v := Verdict{Reasons: j.reasons}
	for _, r := range j.reasons {
		if r.Tier > v.Tier {
			v.Tier = r.Tier
		}
	}
	if v.Tier == Safe && len(prog.Commands) == 0 && len(prog.Issues) > 0 {
		v.Tier = NeedsConfirmation
	}
	j.applyAllow(prog, &v)
	v.Wrapper, v.WrapperOutput, v.WrapperCommand = prog.Wrapper, prog.WrapperOutput, prog.WrapperCommand
	return v
}

// command applies every rule to one normalised command.
func (j *judge) command(c *shell.Command) {
	for _, w := range c.Wrappers {
		j.wrapper(c, w)
	}
	j.paths(c)
	if len(c.Args) == 0 {
		return
	}
	if c.Args[0].Dynamic {
		j.dynamicName(c)
		return
	}
	if a0 := c.Args[0]; a0.Glob && isPattern(a0.Value) && c.Dialect == shell.Sh {
		j.globName(c)
		return
	}
	j.byName(c)
	j.script(c)
	if c.Script == nil {
		j.interpreter(c)
	}
	j.assigns(c)
}

func (j *judge) dynamicName(c *shell.Command) {
	w := c.Args[0]
	if w.Taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hit(c, rulePipeToShell, "runs a command name %s", taintText(w.Taint))
		return
	}
	if t := c.Stdin.Taint; t&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hitPipe(c, rulePipeToShell, "a program only known at run time (%s) reads data %s: it may be a shell", w.Value, taintText(t))
		return
	}
	j.hit(c, ruleDynamicCommand, "the command name %s is only known at run time", w.Value)
}

func taintText(t shell.Taint) string {
	var parts []string
	if t&shell.Network != 0 {
		parts = append(parts, "fetched from the network")
	}
	if t&shell.Downloaded != 0 {
		parts = append(parts, "downloaded by an earlier command")
	}
	if t&shell.Decoded != 0 {
		parts = append(parts, "decoded from hidden data")
	}
	if len(parts) == 0 {
		return "from an unknown source"
	}
	return strings.Join(parts, " and ")
}

// script judges the code a shell, eval or source runs.
func (j *judge) script(c *shell.Command) {
	name := c.Name()
	sr := c.Script
	if sr == nil {
		return
	}
	if name == "eval" && !j.eval(c) {
		return
	}
	if sr.Kind == shell.ScriptPath && sr.Path.Proc && !sr.Path.ContentKnown && j.envPrinter(c, sr.Path.Output) {
		// source <(kubectl completion bash)
		return
	}
	if sr.Taint&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hitPipe(c, rulePipeToShell, "%s runs code %s", scriptRunner(c), taintText(sr.Taint))
		return
	}
	if sr.Known {
		return
	}
	switch sr.Kind {
	case shell.ScriptInteractive:
		if c.Origin == shell.Maybe {
			// A shell's name among an unknown program's words (fnm env
			// --shell bash) is presumed to be a command in case it runs
			// code; a shell run with nothing to do is not that.
			return
		}
		j.hit(c, ruleUnreadableScript, "an interactive %s: commands typed into it are not classified", name)
	case shell.ScriptString:
		j.hit(c, ruleDynamicCommand, "%s runs code that is only known at run time (%s)", scriptRunner(c), sr.Why)
	default:
		j.hit(c, ruleUnreadableScript, "%s runs a script that cannot be read: %s", scriptRunner(c), sr.Why)
	}
}

// eval judges eval: static text is judged as that text and asks for
// confirmation at least; text only known at run time is risky (in a local
// script file read from disk, it asks for confirmation), unless it is
// what a known environment printer prints (eval "$(brew shellenv)"). It
// reports whether the code eval runs is still to be judged.
func (j *judge) eval(c *shell.Command) bool {
	sr := c.Script
	switch {
	case sr.Why == "":
		j.hitAt(c, ruleEval, NeedsConfirmation, "eval runs text as shell code (judged as that text)")
	case len(c.Args) == 2 && sr.Taint == 0 && j.envPrinter(c, c.Args[1].Output):
		return false
	case c.FromFile:
		j.hitAt(c, ruleEval, NeedsConfirmation, "a script evaluates text only known at run time")
	default:
		j.hit(c, ruleEval, "eval runs text only known at run time as shell code")
	}
	return true
}

// envPrinter reports whether out, the command whose output c runs as
// shell code, is a system tool printing environment setup
// (catalog.EnvPrinter): run by its name from PATH or from a path outside
// the writable roots (a home's ~/.local/bin/mise, ~/miniconda3/bin/conda:
// not read, not changed by the command), as itself (no wrapper but
// command, no assignment, no script the analysis found in its place).
func (j *judge) envPrinter(c *shell.Command, out *shell.Command) bool {
	if out == nil || len(out.Args) == 0 || len(out.Assigns) > 0 || out.Stdin.Kind != shell.InputInherited {
		return false
	}
	for _, w := range out.Wrappers {
		if w.Name != "command" || len(w.Args) > 1 {
			return false
		}
	}
	a0 := out.Args[0]
	if a0.Dynamic || a0.Glob || strings.ContainsAny(a0.Value, "\\*?[") {
		return false
	}
	if strings.Contains(a0.Value, "/") {
		if !path.IsAbs(a0.Value) {
			return false
		}
		if _, in := j.env.inRoot(path.Clean(a0.Value)); in {
			return false
		}
		if sr := out.Script; sr != nil && (sr.Kind != shell.ScriptPath || sr.Known || sr.Taint != 0) {
			return false
		}
	} else if out.Script != nil {
		return false
	}
	return catalog.EnvPrinter(out)
}

func scriptRunner(c *shell.Command) string {
	if n := c.Name(); n != "" {
		return n
	}
	return "the command"
}

func (j *judge) assigns(c *shell.Command) {
	for _, a := range c.Assigns {
		switch a.Name {
		case "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH":
			j.hit(c, rulePreload, "%s loads a library into the program", a.Name)
		}
		if policyVar(a.Name) && c.Name() == "safeexec" {
			j.hit(c, ruleNestedSafeexec, "%s changes the policy of a nested safeexec", a.Name)
		}
		if c.Name() == "git" {
			switch a.Name {
			case "GIT_EXEC_PATH":
				j.gitExecPath(c, a.Name, a.Value)
			case "GIT_TEMPLATE_DIR":
				if a.Value.Dynamic || a.Value.Value != "" {
					j.hit(c, ruleGitHooksPath, "GIT_TEMPLATE_DIR copies hooks from %s into new repositories", a.Value.Value)
				}
			}
		}
	}
}

// globNames are the programs a pattern in command position is tried
// against: the ones rules single out.
var globNames = []string{"sudo", "su", "doas", "pkexec", "run0", "rm", "dd", "mkfs", "shred", "wipefs", "fdisk", "chmod",
	"chown", "eval", "exec", "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "node", "ruby", "curl", "wget",
	"nc", "crontab", "reboot", "shutdown", "systemctl", "safeexec", "tmux", "git", "find", "xargs", "env"}

// globName judges a command name that is a file name pattern (/usr/bin/su?o):
// what it runs depends on the files present when it runs. It is judged as
// each singled-out program it can match, and needs confirmation anyway.
func (j *judge) globName(c *shell.Command) {
	a0 := c.Args[0]
	base := a0.Value
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if any, _ := path.Match(base, "qzxjvk"); !any {
		// A pattern that matches any name says nothing about which program.
		j.globNames(c, base)
	}
	j.hit(c, ruleDynamicCommand, "the command name %s is a pattern: which program runs depends on the files present", a0.Value)
}

func (j *judge) globNames(c *shell.Command, base string) {
	for _, n := range globNames {
		if ok, _ := path.Match(base, n); ok {
			cp := *c
			cp.Args = append([]shell.Word{shell.Static(n)}, c.Args[1:]...)
			j.byName(&cp)
			j.paths(&cp)
		}
	}
}

// isPattern reports whether a word is a valid file name pattern ([ alone
// is the test command).
func isPattern(v string) bool {
	if !strings.ContainsAny(v, "*?[") {
		return false
	}
	_, err := path.Match(v, "")
	return err == nil
}

// knownProgram reports whether the classifier knows a program by name:
// the catalog describes it, a rule judges it, or its code is scanned. A
// program it does not know is presumed to run its arguments.
func knownProgram(name string) bool {
	if catalog.Lookup(name) != nil || judges[name] != nil || interpreterLang(name) != langNone || strings.HasPrefix(name, "docker-credential-") {
		return true
	}
	l := strings.ToLower(name)
	return foldJudges[l] != nil || diskPrefix(l)
}
