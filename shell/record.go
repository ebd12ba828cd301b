package shell

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// markDownloaded taints arguments naming files fetched earlier.
func (p *parser) markDownloaded(cmd *Command, sc *scope) {
	if len(sc.shared.downloads) == 0 && len(sc.shared.downloadDirs) == 0 {
		return
	}
	for i, a := range cmd.Args {
		if abs, ok := cmd.Abs(a); ok && sc.shared.downloaded(abs) {
			cmd.Args[i].Taint |= Downloaded
		}
	}
}

// writes is what the catalog says a command changes on disk.
func (p *parser) writes(cmd *Command) Writes {
	if len(cmd.Args) == 0 || cmd.Args[0].Dynamic {
		return Writes{}
	}
	t := p.tool(cmd.Name())
	if t == nil || t.Writes == nil {
		return Writes{}
	}
	return t.Writes(cmd)
}

// recordDownload remembers files that a command writes with data from the
// network, so that running them later is seen as running downloaded code.
func (p *parser) recordDownload(cmd *Command, sc *scope, w Writes) {
	net := p.networkSource(cmd)
	fed := cmd.Stdin.Taint&(Network|Downloaded) != 0 || taintOf(cmd.Args)&(Network|Downloaded) != 0
	if !net && !fed {
		return
	}
	add := func(w Word) {
		if abs, ok := cmd.Abs(w); ok && abs != "/dev/null" && abs != "-" {
			if sc.shared.downloads == nil {
				sc.shared.downloads = make(map[string]bool)
			}
			sc.shared.downloads[abs] = true
		}
	}
	for _, r := range cmd.Redirs {
		if r.Writes() && (r.Fd == -1 || r.Fd == 1) {
			add(r.Target)
		}
	}
	for _, f := range w.Files {
		add(f)
	}
	// What an archiver fed downloaded data extracts is downloaded too,
	// wherever in its directory it lands (curl … | tar x; ./install.sh).
	addDir := func(d string) {
		if len(sc.shared.downloadDirs) < 64 {
			sc.shared.downloadDirs = append(sc.shared.downloadDirs, d)
		}
	}
	if w.Here && cmd.DirKnown {
		addDir(cmd.Dir)
	}
	for _, d := range w.Dirs {
		if abs, ok := cmd.Abs(d); ok {
			addDir(abs)
		}
	}
}

// downloaded reports whether a file was written with data from the
// network by an earlier command of the script.
func (sh *shared) downloaded(abs string) bool {
	if sh.downloads[abs] {
		return true
	}
	for _, d := range sh.downloadDirs {
		if abs == d || strings.HasPrefix(abs, d+"/") || d == "/" {
			return true
		}
	}
	return false
}

// recordWrites remembers what a command changes on disk, so that a local
// script read later in the same script is not trusted (its content on
// disk is not what will run), and records symbolic links and the
// programs compilers build.
func (p *parser) recordWrites(cmd *Command, sc *scope, w Writes) {
	sh := sc.shared
	lits := p.literalWrites(cmd, sc, w)
	file := func(w Word) {
		sh.writes++
		if w.Proc {
			return
		}
		abs, ok := cmd.Abs(w)
		if !ok {
			if w.Dynamic || !cmd.DirKnown {
				sh.anyWritten = true
			}
			return
		}
		if abs == "/dev/null" || strings.HasPrefix(abs, "/dev/") {
			return
		}
		delete(sh.built, abs)
		delete(sh.literal, abs)
		if sh.written == nil {
			sh.written = sh.newWritten()
		}
		sh.written[abs] = true
	}
	forgetUnder := func(dir string) {
		for f := range sh.literal {
			if f == dir || strings.HasPrefix(f, dir+"/") || dir == "/" {
				delete(sh.literal, f)
			}
		}
	}
	for _, r := range cmd.Redirs {
		if r.Writes() {
			file(r.Target)
		}
	}
	for _, f := range w.Files {
		file(f)
	}
	for _, f := range w.Maybe {
		file(f)
	}
	for _, d := range w.Dirs {
		file(d)
		if abs, ok := cmd.Abs(d); ok {
			sh.writtenDirs = append(sh.writtenDirs, abs)
			forgetUnder(abs)
		}
	}
	if w.Here {
		sh.writes++
		if cmd.DirKnown {
			sh.writtenDirs = append(sh.writtenDirs, cmd.Dir)
			forgetUnder(cmd.Dir)
		} else {
			sh.anyWritten = true
			sh.literal = nil
		}
	}
	for _, d := range w.BuiltDirs {
		if abs, ok := cmd.Abs(d); ok && !d.Dynamic && len(sh.builtDirs) < 64 {
			sh.builtDirs = append(sh.builtDirs, abs)
		}
	}
	if w.BuiltHere && cmd.DirKnown && len(sh.builtDirs) < 64 {
		sh.builtDirs = append(sh.builtDirs, cmd.Dir)
	}
	for _, b := range w.Built {
		if abs, ok := cmd.Abs(b); ok && !b.Dynamic {
			if sh.built == nil {
				sh.built = make(map[string]bool)
			}
			sh.built[abs] = true
		}
	}
	for _, l := range w.Links {
		p.addLink(cmd, l[0], l[1])
	}
	if w.Venv != "" {
		p.recordVenv(cmd, sc, w.Venv)
		if abs, ok := cmd.Abs(Static(path.Join(w.Venv, "bin"))); ok && len(sh.builtDirs) < 64 {
			sh.builtDirs = append(sh.builtDirs, abs)
		}
	}
	for abs, text := range lits {
		if sh.literal == nil {
			sh.literal = make(map[string]string)
		}
		if len(sh.literal) < 64 {
			sh.literal[abs] = text
		}
	}
}

// literalWrites returns the files a command writes with text known
// statically (echo … > FILE, cat > FILE <<EOF, printf … | tee FILE,
// and >> to a file whose content is known), with their new content.
func (p *parser) literalWrites(cmd *Command, sc *scope, w Writes) map[string]string {
	if len(cmd.Wrappers) > 0 || len(cmd.Args) == 0 || cmd.Args[0].Dynamic {
		return nil
	}
	sh := sc.shared
	var out map[string]string
	set := func(t Word, text string, appends bool) {
		abs, ok := cmd.Abs(t)
		if !ok || t.Proc || strings.HasPrefix(abs, "/dev/") {
			return
		}
		if appends {
			old, ok := p.currentText(abs, sc)
			if !ok {
				return // appended to a file whose content is not known
			}
			text = old + text
		}
		if len(text) > MaxScriptFile {
			return
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[abs] = text
	}
	if cmd.Name() == "tee" && cmd.Stdin.TextKnown && cmd.Stdin.Taint == 0 {
		appends := anyArgs.Has(cmd.Args, "a", "append")
		for _, f := range w.Files {
			set(f, cmd.Stdin.Text, appends)
		}
		return out
	}
	var redir []int
	for i, r := range cmd.Redirs {
		if r.Writes() && (r.Fd == -1 || r.Fd == 1) && (r.Op == ">" || r.Op == ">|" || r.Op == ">>") {
			redir = append(redir, i)
		}
	}
	if len(redir) != 1 || p.decoder(cmd) || taintOf(cmd.Args) != 0 {
		return nil
	}
	plain := *cmd
	plain.Redirs = nil
	for _, r := range cmd.Redirs {
		if !r.Writes() {
			plain.Redirs = append(plain.Redirs, r)
		}
	}
	in, inKnown := "", false
	if cmd.Stdin.TextKnown && cmd.Stdin.Taint == 0 {
		in, inKnown = cmd.Stdin.Text, true
	}
	text, ok := foldCommand(&plain, in, inKnown)
	if !ok {
		return nil
	}
	r := cmd.Redirs[redir[0]]
	_ = sh
	set(r.Target, text, r.Op == ">>")
	return out
}

// currentText is a file's content at this point of the script, when it
// is known: written literally earlier, a virtual environment's activate
// script, or unchanged on disk.
func (p *parser) currentText(abs string, sc *scope) (string, bool) {
	sh := sc.shared
	if text, ok := sh.literalScript(abs); ok {
		return text, true
	}
	if text, ok := sh.venvScript(abs); ok {
		return text, true
	}
	if sh.changed(abs) || sh.downloaded(abs) || p.opts.ReadScript == nil {
		return "", false
	}
	data, err := p.opts.ReadScript(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", true
		}
		return "", false
	}
	if len(data) > MaxScriptFile || isBinary(data) {
		return "", false
	}
	return string(data), true
}

// literalScript returns the text an earlier command wrote to a file,
// when no later write touched it.
func (sh *shared) literalScript(abs string) (string, bool) {
	text, ok := sh.literal[abs]
	if !ok || sh.anyWritten {
		return "", false
	}
	return text, true
}

// underBuilt reports whether a file lies where an earlier command builds
// or installs programs.
func (sh *shared) underBuilt(abs string) bool {
	if sh.built[abs] {
		return true
	}
	for _, d := range sh.builtDirs {
		if abs == d || strings.HasPrefix(abs, d+"/") || d == "/" {
			return true
		}
	}
	return false
}

// addLink records a symbolic link NAME → TARGET the script creates.
func (p *parser) addLink(cmd *Command, target, link Word) {
	t, ok := cmd.Abs(target)
	if !ok || target.Dynamic {
		return
	}
	l, ok := cmd.Abs(link)
	if !ok {
		return
	}
	if p.prog.Links == nil {
		p.prog.Links = make(map[string]string)
	}
	if strings.HasPrefix(target.Value, "/") {
		p.prog.Links[l] = t
	} else {
		p.prog.Links[l] = path.Join(path.Dir(l), target.Value)
	}
}

// recordVenv remembers the activate script of a virtual environment the
// command creates in dir (python -m venv DIR, virtualenv DIR, uv venv):
// sourced right after, with nothing written in between, its content is
// the generator's, not whatever is on disk now.
func (p *parser) recordVenv(cmd *Command, sc *scope, dir string) {
	if len(cmd.Wrappers) > 0 {
		return
	}
	abs, ok := cmd.Abs(Static(path.Join(dir, "bin", "activate")))
	if !ok {
		return
	}
	sh := sc.shared
	if sh.venvs == nil {
		sh.venvs = make(map[string]int)
	}
	sh.venvs[abs] = sh.writes
	delete(sh.written, abs)
}

// venvScript returns the activate script of a virtual environment created
// earlier in the script, when nothing was written since.
func (sh *shared) venvScript(abs string) (string, bool) {
	n, ok := sh.venvs[abs]
	if !ok || n != sh.writes || sh.anyWritten {
		return "", false
	}
	return strings.Replace(venvActivate, "VENV", path.Dir(path.Dir(abs)), 1), true
}

// venvActivate stands for the activate script python -m venv, virtualenv
// and uv venv write: it sets VIRTUAL_ENV and puts its bin directory first
// in PATH.
const venvActivate = `deactivate () { PATH="$_OLD_VIRTUAL_PATH"; export PATH; unset VIRTUAL_ENV; }
_OLD_VIRTUAL_PATH="$PATH"
VIRTUAL_ENV=VENV
export VIRTUAL_ENV
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
`
