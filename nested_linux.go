package safeexec

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/audit"
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/sandbox"
)

// nestedServer is the outer run's end of the channel (see nested.go).
type nestedServer struct {
	dir string
	ln  *net.UnixListener
	log recorder
	// prepare fills answer (nil if it could not be encoded: the inner run
	// is then refused) and fp, once, on the first connection.
	prepare func()
	answer  []byte

	parent  string
	sandbox audit.Sandbox
	fp      string
	secrets []string
	started time.Time
	notef   func(string, ...any)

	mu     sync.Mutex
	closed bool
	count  int
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

// nestedSocket is the socket's name in the channel's directory.
const nestedSocket = "outer.sock"

// startNested opens the channel to this run for a safeexec started inside
// its sandbox, when the sandbox has a PID namespace of its own (bwrap): a
// socket in a private directory shown read-only inside, named by
// $SAFEEXEC_NESTED.
func (p *pipeline) startNested(sp *sandbox.Policy, cmd *sandbox.Command) (*nestedServer, error) {
	if p.backend == nil || p.backend.Name() != "bwrap" {
		return nil, nil
	}
	// A sandbox started ahead already shows a directory made for this.
	dir := p.req.Ahead.takeNested()
	if dir == "" {
		var err error
		if dir, err = prelaunch.MakeNested(); err != nil {
			return nil, fmt.Errorf("nested channel: %w", err)
		}
	}
	sock := filepath.Join(dir, nestedSocket)
	ln, err := listenUnix(sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("nested channel: %w", err)
	}
	// Inside, the policy is seen from within: the private temporary
	// directory and safeexec's tool cache are writable there too.
	pol := p.req.Policy
	inside := *pol
	inside.AllowWrite = slices.Clone(inside.AllowWrite)
	for _, d := range []string{"/tmp", sp.CacheDir} {
		if d != "" && !slices.Contains(inside.AllowWrite, d) {
			inside.AllowWrite = append(inside.AllowWrite, d)
		}
	}
	ans := nestedAnswer{
		Policy: &inside, Backend: p.out.Sandbox.Backend, Mode: pol.Mode, Level: p.out.Sandbox.Level,
		Parent: p.id, ReadDirs: slices.Clone(p.req.ReadDirs), ReadOnly: p.req.ReadOnly,
	}
	s := &nestedServer{
		dir: dir, ln: ln, log: p.log,
		parent: p.id, sandbox: p.recordSandbox(), secrets: p.secrets, started: p.start,
		notef: p.req.notef, conns: map[net.Conn]bool{},
	}
	// What an inner run is told, and the fingerprint its record carries,
	// are put together when the first one connects: most commands start
	// none, and the encoding would cost every run.
	s.prepare = sync.OnceFunc(func() {
		if b, err := json.Marshal(ans); err == nil {
			s.answer = append(b, '\n')
		}
		s.fp = pol.Fingerprint()
	})
	sp.ReadOnlyRoots = append(sp.ReadOnlyRoots, dir)
	cmd.Env = append(cmd.Env, nestedEnv+"="+sock)
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// accept takes the inner runs' connections.
func (s *nestedServer) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.conns[conn] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(conn)
	}
}

// serve answers one inner run: its hello, its record.
func (s *nestedServer) serve(conn net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
	}()
	r := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := readLine(r, maxNestedMessage)
		if err != nil {
			return
		}
		var req nestedRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return
		}
		var reply []byte
		switch req.Op {
		case "hello":
			s.prepare()
			if reply = s.answer; reply == nil {
				return
			}
		case "record":
			rep := nestedReply{OK: true}
			if err := s.append(req.Record); err != nil {
				rep = nestedReply{Error: err.Error()}
			}
			b, _ := json.Marshal(rep)
			reply = append(b, '\n')
		default:
			return
		}
		conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write(reply); err != nil {
			return
		}
	}
}

func (s *nestedServer) append(raw json.RawMessage) error {
	rec, err := s.nestedRecord(raw)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the outer run has ended")
	}
	if s.count >= maxNestedRecords {
		if s.count == maxNestedRecords {
			s.notef("more than %d records from inside the sandbox; the rest are dropped", maxNestedRecords)
			s.count++
		}
		return errors.New("too many records")
	}
	s.count++
	return s.log.Append(rec)
}

// close stops taking records, waits for those under way and removes the
// socket.
// directory is the channel's directory ("" without one).
func (s *nestedServer) directory() string {
	if s == nil {
		return ""
	}
	return s.dir
}

func (s *nestedServer) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	// The directory holds the socket alone (the sandbox sees it
	// read-only): two calls instead of a walk, the walk if anything else
	// is there.
	os.Remove(filepath.Join(s.dir, nestedSocket))
	if os.Remove(s.dir) != nil {
		os.RemoveAll(s.dir)
	}
}

// detectOuter connects to the outer run's socket and checks who holds it.
func detectOuter(sock string) (*Outer, error) {
	if !filepath.IsAbs(sock) {
		return nil, fmt.Errorf("%s=%q is not an absolute path", nestedEnv, sock)
	}
	conn, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nestedEnv, err)
	}
	// The socket is held by a process this one cannot see: one outside its
	// PID namespace, i.e. the safeexec that made the sandbox. A socket
	// held by anything in reach (a process that set the variable itself)
	// has a PID here.
	raw, err := conn.(*net.UnixConn).SyscallConn()
	var cred *unix.Ucred
	if err == nil {
		cerr := raw.Control(func(fd uintptr) {
			cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		})
		if cerr != nil {
			err = cerr
		}
	}
	if err != nil || cred == nil || cred.Pid != 0 {
		conn.Close()
		return nil, fmt.Errorf("%s: %s is not held by a safeexec outside this sandbox", nestedEnv, sock)
	}
	o := &Outer{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}
	var ans nestedAnswer
	if err := o.call(nestedRequest{Op: "hello"}, &ans); err != nil {
		conn.Close()
		return nil, err
	}
	if ans.Policy == nil || ans.Backend == "" || ans.Parent == "" {
		conn.Close()
		return nil, errors.New("nested safeexec: the outer run's answer is incomplete")
	}
	o.Policy, o.Backend, o.Mode, o.Level, o.Parent = ans.Policy, ans.Backend, ans.Mode, ans.Level, ans.Parent
	o.ReadDirs, o.ReadOnly = ans.ReadDirs, ans.ReadOnly
	return o, nil
}

// nestedRecord turns what an inner run reported into the record the outer
// run writes: the outer run vouches for where it ran (its sandbox, its
// policy, its user) and marks it as nested; the rest is as reported.
func (s *nestedServer) nestedRecord(raw []byte) (*audit.Record, error) {
	s.prepare()
	var rec audit.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("not a record: %v", err)
	}
	fresh := audit.NewRecord()
	rec.V, rec.Parent, rec.User = fresh.V, s.parent, fresh.User
	if rec.ID == "" || len(rec.ID) > 64 {
		rec.ID = fresh.ID
	}
	if rec.Kind == "" {
		rec.Kind = audit.KindRun
	}
	rec.Sandbox, rec.PolicyFP = s.sandbox, s.fp
	if rec.Time.IsZero() || rec.Time.Before(s.started) || rec.Time.After(time.Now()) {
		rec.Time = time.Now()
	}
	rec.Redact(s.secrets)
	return &rec, nil
}

// listenUnix listens on a new unix socket at path. It is net.ListenUnix
// without the read of the kernel's backlog limit (a 64 KiB buffer for
// one number, on every run); the socket goes with its directory.
func listenUnix(path string) (*net.UnixListener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return nil, fmt.Errorf("bind %s: %w", path, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, err
	}
	return ln.(*net.UnixListener), nil
}
