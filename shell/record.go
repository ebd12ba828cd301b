package shell

import (
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
		if sh.written == nil {
			sh.written = make(map[string]bool)
		}
		sh.written[abs] = true
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
		}
	}
	if w.Here {
		sh.writes++
		if cmd.DirKnown {
			sh.writtenDirs = append(sh.writtenDirs, cmd.Dir)
		} else {
			sh.anyWritten = true
		}
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
	}
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
