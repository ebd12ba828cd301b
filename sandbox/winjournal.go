package sandbox

// The journal of the Windows helper's ACL changes, portable so that its
// file format and its recovery rules are tested on every OS.
//
// Every ACE the helper adds (an allow ACE for the run's SIDs on a writable
// root, a deny ACE on a protected or credential path) is written to the
// run's journal, and the journal is flushed to disk, before the ACE is
// applied. After the run the helper removes the ACEs and then the journal.
// A helper that is killed (or whose safeexec is killed, which kills the
// helper's job) leaves its journal behind; the next safeexec start finds
// it, sees that the run's helper is gone, and removes what it names.
//
// Runs in the same workspace share the workspace SID, so two of them may
// hold the same ACE at once; an ACE is removed only when no live run's
// journal names it too. Removing is idempotent: it takes away every
// explicit ACE for that SID on that path, and nothing when there is none.
//
// Format: JSON lines in <dir>/<run>.journal. The first line is the
// header, every further line one change:
//
//	{"v":1,"run":"…","pid":1234,"created":133…}
//	{"op":"allow","path":"C:\\work\\proj","sid":"S-1-15-3-7362-…","mask":1245631}
//
// A line cut short by a crash is ignored: its change was not applied,
// since a change is applied only after its line is on disk.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// journalVersion is the "v" of a journal header.
const journalVersion = 1

// journalExt names journal files in the journal directory.
const journalExt = ".journal"

// The sub-authority after S-1-15-3 that marks safeexec's own SIDs: the
// workspace SIDs and the per-run SIDs. Recovery touches only ACEs naming
// such SIDs, so a journal line cannot make it remove anyone else's ACE.
const (
	workspaceSIDMark = 7362
	runSIDMark       = 7363
)

// aclChange is one ACE the helper adds for SID on Path, with the access
// Mask: Op "allow" and "deny" are inherited by everything below a
// directory; "pin" is a deny ACE for the object itself only (an ancestor
// of a protected path, which must not be renamed or removed).
type aclChange struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	SID  string `json:"sid"`
	Mask uint32 `json:"mask"`
}

// key identifies the ACEs a change adds: removing a change removes every
// explicit ACE for its SID on its path.
func (c aclChange) key() string {
	return strings.ToLower(filepath.Clean(c.Path)) + "\x00" + c.SID
}

func (c aclChange) check() error {
	if c.Op != "allow" && c.Op != "deny" && c.Op != "pin" {
		return fmt.Errorf("unknown op %q", c.Op)
	}
	if c.Path == "" || !filepath.IsAbs(c.Path) {
		return fmt.Errorf("path %q is not absolute", c.Path)
	}
	if !ownSID(c.SID) {
		return fmt.Errorf("SID %q is not one of safeexec's", c.SID)
	}
	return nil
}

// ownSID reports whether s is a SID safeexec makes: S-1-15-3-7362-… or
// S-1-15-3-7363-… with four more sub-authorities.
func ownSID(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) != 9 || parts[0] != "S" || parts[1] != "1" || parts[2] != "15" || parts[3] != "3" {
		return false
	}
	if parts[4] != fmt.Sprint(workspaceSIDMark) && parts[4] != fmt.Sprint(runSIDMark) {
		return false
	}
	for _, p := range parts[5:] {
		if p == "" || len(p) > 10 {
			return false
		}
		for _, r := range p {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}

// journalHeader names the run that owns a journal: the helper's process
// id and creation time (so a reused pid is not taken for the run).
type journalHeader struct {
	V       int    `json:"v"`
	Run     string `json:"run"`
	PID     int    `json:"pid"`
	Created uint64 `json:"created"`
}

// aclJournal is a run's open journal.
type aclJournal struct {
	f       *os.File
	path    string
	hdr     journalHeader
	changes []aclChange
}

// createJournal starts the journal of a run in dir.
func createJournal(dir string, hdr journalHeader) (*aclJournal, error) {
	if hdr.Run == "" || strings.ContainsAny(hdr.Run, `/\.:`) {
		return nil, fmt.Errorf("acl journal: bad run id %q", hdr.Run)
	}
	hdr.V = journalVersion
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("acl journal: %w", err)
	}
	p := filepath.Join(dir, hdr.Run+journalExt)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("acl journal: %w", err)
	}
	j := &aclJournal{f: f, path: p, hdr: hdr}
	if err := j.writeLine(hdr); err != nil {
		f.Close()
		os.Remove(p)
		return nil, err
	}
	return j, nil
}

func (j *aclJournal) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("acl journal: %w", err)
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("acl journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("acl journal %s: %w", j.path, err)
	}
	return nil
}

// record writes c to the journal and flushes it; only then may c be
// applied.
func (j *aclJournal) record(c aclChange) error {
	if err := c.check(); err != nil {
		return fmt.Errorf("acl journal: %w", err)
	}
	if err := j.writeLine(c); err != nil {
		return err
	}
	j.changes = append(j.changes, c)
	return nil
}

// close closes the journal file and removes it: every change it names
// has been undone.
func (j *aclJournal) remove() error {
	j.f.Close()
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("acl journal: %w", err)
	}
	return nil
}

// readJournal reads a journal file. A last line without its newline (cut
// short by a crash) is ignored; so is a line that is not a valid change.
func readJournal(p string) (journalHeader, []aclChange, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return journalHeader{}, nil, err
	}
	var hdr journalHeader
	var changes []aclChange
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	first := true
	complete := bytes.HasSuffix(b, []byte("\n"))
	lines := 0
	total := bytes.Count(b, []byte("\n"))
	for sc.Scan() {
		lines++
		if lines > total && !complete {
			break // the cut-off last line
		}
		line := sc.Bytes()
		if first {
			first = false
			if err := json.Unmarshal(line, &hdr); err != nil || hdr.V != journalVersion || hdr.PID <= 0 {
				return journalHeader{}, nil, fmt.Errorf("acl journal %s: bad header", p)
			}
			continue
		}
		var c aclChange
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if dec.Decode(&c) != nil || c.check() != nil {
			continue
		}
		changes = append(changes, c)
	}
	if first {
		return journalHeader{}, nil, fmt.Errorf("acl journal %s: no header", p)
	}
	return hdr, changes, nil
}

// journalFiles lists the journals in dir, sorted.
func journalFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), journalExt) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// journalSet is what the journals of a directory say: which runs are
// gone (with their changes) and which ACEs live runs still hold.
type journalSet struct {
	held  map[string]bool // change keys of live runs
	stale []staleJournal
}

type staleJournal struct {
	path    string
	hdr     journalHeader
	changes []aclChange
	bad     bool // unreadable header: nothing to undo, just remove
}

// scanJournals reads every journal in dir except skip (the caller's own)
// and sorts them by whether their run is alive.
func scanJournals(dir, skip string, alive func(journalHeader) bool) (*journalSet, error) {
	files, err := journalFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("acl journal: %w", err)
	}
	s := &journalSet{held: map[string]bool{}}
	for _, f := range files {
		if f == skip {
			continue
		}
		hdr, changes, err := readJournal(f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			s.stale = append(s.stale, staleJournal{path: f, bad: true})
			continue
		}
		if alive(hdr) {
			for _, c := range changes {
				s.held[c.key()] = true
			}
			continue
		}
		s.stale = append(s.stale, staleJournal{path: f, hdr: hdr, changes: changes})
	}
	return s, nil
}

// undoChanges removes, last first, the changes no live run holds. It
// returns the errors of those that could not be removed.
func undoChanges(changes []aclChange, held map[string]bool, undo func(aclChange) error) []error {
	var errs []error
	done := map[string]bool{}
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		k := c.key()
		if held[k] || done[k] {
			continue
		}
		done[k] = true
		if err := undo(c); err != nil {
			errs = append(errs, fmt.Errorf("%s %s on %s: %w", c.Op, c.SID, c.Path, err))
		}
	}
	return errs
}

// recoverJournals undoes the journals in dir whose run is gone (all but
// skip) and removes them. A journal whose changes could not all be undone
// is kept for the next start. It reports the runs recovered, by journal
// path, and the errors met.
func recoverJournals(dir, skip string, alive func(journalHeader) bool, undo func(aclChange) error) (recovered []string, errs []error) {
	s, err := scanJournals(dir, skip, alive)
	if err != nil {
		return nil, []error{err}
	}
	// A stale journal's ACE may also be named by the caller's own run,
	// which is alive: it keeps it.
	if skip != "" {
		if _, own, err := readJournal(skip); err == nil {
			for _, c := range own {
				s.held[c.key()] = true
			}
		}
	}
	for _, st := range s.stale {
		var uerrs []error
		if !st.bad {
			uerrs = undoChanges(st.changes, s.held, undo)
		}
		if len(uerrs) > 0 {
			errs = append(errs, uerrs...)
			continue
		}
		if err := os.Remove(st.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		recovered = append(recovered, st.path)
	}
	return recovered, errs
}

// finishJournal undoes the caller's own journal j, except the ACEs a live
// run still holds, and removes it when everything was undone.
func finishJournal(dir string, j *aclJournal, alive func(journalHeader) bool, undo func(aclChange) error) []error {
	s, err := scanJournals(dir, j.path, alive)
	if err != nil {
		return []error{err}
	}
	errs := undoChanges(j.changes, s.held, undo)
	if len(errs) > 0 {
		j.f.Close() // kept for the next start
		return errs
	}
	if err := j.remove(); err != nil {
		return []error{err}
	}
	return nil
}
