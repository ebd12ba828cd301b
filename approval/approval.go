package approval

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Store keeps approvals under Dir (safeexec's state directory).
type Store struct {
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// record is one approval file.
type record struct {
	V       int       `json:"v"`
	Cwd     string    `json:"cwd"`
	Command string    `json:"command"`
	Agent   string    `json:"agent,omitempty"`
	Expires time.Time `json:"expires"`
}

// maxRecord bounds what is read from one file.
const maxRecord = 1 << 20

// Key names an approval: a hash of the working directory and the exact
// command text.
func Key(cwd, command string) string {
	h := sha256.New()
	io.WriteString(h, "safeexec-approval-v1\x00")
	io.WriteString(h, cwd)
	h.Write([]byte{0})
	io.WriteString(h, command)
	return hex.EncodeToString(h.Sum(nil))
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s Store) approvalsDir() string { return filepath.Join(s.Dir, "approvals") }

func (s Store) sessionDir(session string) string {
	sum := sha256.Sum256([]byte("safeexec-session-v1\x00" + session))
	return filepath.Join(s.Dir, "sessions", hex.EncodeToString(sum[:16]))
}

// Grant leaves a one-time approval of command in cwd, valid for ttl, for
// the run that follows the hook that asked (agent names the hook).
func (s Store) Grant(cwd, command, agent string, ttl time.Duration) error {
	dir := s.approvalsDir()
	if err := privateDir(dir); err != nil {
		return err
	}
	s.prune(dir)
	return writeRecord(dir, Key(cwd, command), record{V: 1, Cwd: cwd, Command: command, Agent: agent, Expires: s.now().Add(ttl)})
}

// Consume takes the one-time approval of command in cwd, if there is a
// valid one, and returns the agent that left it.
func (s Store) Consume(cwd, command string) (agent string, ok bool) {
	dir := s.approvalsDir()
	if !privateExisting(dir) {
		return "", false
	}
	name := filepath.Join(dir, Key(cwd, command))
	// Rename first: of two runs only one gets it.
	taken := name + ".taken-" + randomSuffix()
	if err := os.Rename(name, taken); err != nil {
		return "", false
	}
	defer os.Remove(taken)
	r, err := readRecord(taken)
	if err != nil || r.Cwd != cwd || r.Command != command || !s.now().Before(r.Expires) {
		return "", false
	}
	return r.Agent, true
}

// AllowInSession records that command in cwd is allowed for the rest of
// session, for ttl.
func (s Store) AllowInSession(session, cwd, command string, ttl time.Duration) error {
	if session == "" {
		return errors.New("no session")
	}
	root := filepath.Join(s.Dir, "sessions")
	if err := privateDir(root); err != nil {
		return err
	}
	s.pruneSessions(root)
	dir := s.sessionDir(session)
	if err := privateDir(dir); err != nil {
		return err
	}
	return writeRecord(dir, Key(cwd, command), record{V: 1, Cwd: cwd, Command: command, Expires: s.now().Add(ttl)})
}

// SessionAllows reports whether command in cwd was allowed for session.
func (s Store) SessionAllows(session, cwd, command string) bool {
	if session == "" {
		return false
	}
	dir := s.sessionDir(session)
	if !privateExisting(filepath.Join(s.Dir, "sessions")) || !privateExisting(dir) {
		return false
	}
	r, err := readRecord(filepath.Join(dir, Key(cwd, command)))
	return err == nil && r.Cwd == cwd && r.Command == command && s.now().Before(r.Expires)
}

func randomSuffix() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// privateDir creates dir (and its parents) as needed and checks that dir
// itself is a directory of this user that nobody else may write or read.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	if !privateExisting(dir) {
		return fmt.Errorf("approvals: %s is not a directory private to this user", dir)
	}
	return nil
}

// privateExisting reports whether dir is a real directory owned by this
// user with no access for others.
func privateExisting(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
		return false
	}
	return ownedPrivate(fi)
}

func writeRecord(dir, name string, r record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+name+".tmp-"+randomSuffix())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return fmt.Errorf("approvals: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("approvals: %w", err)
	}
	return nil
}

func readRecord(path string) (record, error) {
	var r record
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return r, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return r, err
	}
	if !fi.Mode().IsRegular() || !ownedPrivate(fi) {
		return r, errors.New("not a private regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, err
	}
	if r.V != 1 {
		return r, fmt.Errorf("unknown approval version %d", r.V)
	}
	return r, nil
}

// prune removes expired and unreadable approvals from dir.
func (s Store) prune(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := s.now()
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") || strings.Contains(e.Name(), ".taken-") {
			// Left behind by a process that died half-way.
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > time.Hour {
				os.Remove(p)
			}
			continue
		}
		if r, err := readRecord(p); err != nil || !now.Before(r.Expires) {
			os.Remove(p)
		}
	}
}

// pruneSessions removes the sessions whose every approval has expired.
func (s Store) pruneSessions(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		s.prune(dir)
		os.Remove(dir) // only succeeds once it is empty
	}
}
