package toolcache

// A build cache for the go command (GOCACHEPROG) that reads two caches and
// writes one: the project's own, in the layout of Go's own cache (so that
// a go command without GOCACHEPROG finds the same entries), and the
// host's GOCACHE, read-only. Entries are looked up in the project's cache
// first; one found only in the host's is copied into the project's, so
// that the project's cache alone soon holds what the project's builds
// use (see sync.go). The protocol is the one of cmd/go/internal/cacheprog:
// JSON requests on stdin, JSON responses on stdout, a put's body as a
// base64 JSON string on the line after it.

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type goCacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type goCacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// idLen is the length of Go's action and output IDs (SHA-256).
const idLen = 32

// maxBody bounds one cached output: far above any package archive or
// test binary, below what would exhaust memory.
const maxBody = 4 << 30

// GoCache says what [ServeGoCache] serves.
type GoCache struct {
	// Own is the project's cache (created if missing), written.
	Own string
	// Host is the host's GOCACHE, never written ("" for none).
	Host string
	// Mark, when not empty, is recorded in Own when the go command closes
	// a session that found everything in Own (see [Env]).
	Mark string
}

// ServeGoCache answers the go command on r and w until it sends "close"
// or closes r.
func ServeGoCache(g GoCache, r io.Reader, w io.Writer) error {
	own, host := g.Own, g.Host
	if !filepath.IsAbs(own) || host != "" && !filepath.IsAbs(host) {
		return errors.New("gocache: the cache directories must be absolute paths")
	}
	if err := os.MkdirAll(own, 0o777); err != nil {
		return fmt.Errorf("gocache: %w", err)
	}
	c := &goCache{own: own, host: host}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	send := func(res *goCacheResponse) error {
		if err := enc.Encode(res); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := send(&goCacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return fmt.Errorf("gocache: %w", err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	for {
		var req goCacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("gocache: read request: %w", err)
		}
		res := &goCacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			c.get(&req, res)
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if req.BodySize > maxBody {
					return fmt.Errorf("gocache: body of %d bytes is too large", req.BodySize)
				}
				if err := dec.Decode(&body); err != nil {
					return fmt.Errorf("gocache: read body: %w", err)
				}
			}
			c.put(&req, body, res)
		case "close":
			now := time.Now()
			c.trim(now)
			// A session that needed nothing from the host's cache shows
			// that the project's holds what this kind of command uses.
			if g.Mark != "" && c.gets > 0 && c.fromHost == 0 {
				addSyncMark(own, g.Mark, now)
			}
			return send(res)
		default:
			res.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if err := send(res); err != nil {
			return fmt.Errorf("gocache: %w", err)
		}
	}
}

type goCache struct {
	own, host string
	// gets counts the get requests, fromHost those answered from the
	// host's cache.
	gets, fromHost int
}

// entry is one action entry, as Go's disk cache writes it:
// "v1 <action> <output> <size> <time>\n".
type entry struct {
	output []byte
	size   int64
	time   time.Time
}

func entryPath(dir string, id []byte) string {
	h := hex.EncodeToString(id)
	return filepath.Join(dir, h[:2], h+"-a")
}

func outputPath(dir string, id []byte) string {
	h := hex.EncodeToString(id)
	return filepath.Join(dir, h[:2], h+"-d")
}

func (c *goCache) get(req *goCacheRequest, res *goCacheResponse) {
	if len(req.ActionID) != idLen {
		res.Err = "bad action ID"
		return
	}
	c.gets++
	found := func(e entry, out string) {
		t := e.time
		res.OutputID, res.Size, res.Time, res.DiskPath = e.output, e.size, &t, out
	}
	if e, out, ok := lookup(c.own, req.ActionID); ok {
		markUsed(entryPath(c.own, req.ActionID), out)
		found(e, out)
		return
	}
	if c.host == "" {
		res.Miss = true
		return
	}
	e, out, ok := lookup(c.host, req.ActionID)
	if !ok {
		res.Miss = true
		return
	}
	c.fromHost++
	// Copied, the entry is the project's from now on; if the copy fails
	// the host's file serves this session.
	if copied, err := c.adopt(req.ActionID, e, out); err == nil {
		out = copied
	}
	found(e, out)
}

// lookup finds an action's entry in dir and the path of its output, which
// must be a regular file of the entry's size.
func lookup(dir string, action []byte) (entry, string, bool) {
	e, ok := readEntry(dir, action)
	if !ok {
		return entry{}, "", false
	}
	out := outputPath(dir, e.output)
	fi, err := os.Stat(out)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != e.size {
		return entry{}, "", false
	}
	return e, out, true
}

// adopt copies a host entry and its output (at hostOut) into the
// project's cache, output first so that the entry never names a missing
// file, and returns the copy's output path.
func (c *goCache) adopt(action []byte, e entry, hostOut string) (string, error) {
	out := outputPath(c.own, e.output)
	if fi, err := os.Stat(out); err != nil || !fi.Mode().IsRegular() || fi.Size() != e.size {
		if err := copyAtomic(out, hostOut, e.size); err != nil {
			return "", err
		}
	}
	line := fmt.Sprintf("v1 %x %x %20d %20d\n", action, e.output, e.size, e.time.UnixNano())
	if err := writeAtomic(entryPath(c.own, action), []byte(line)); err != nil {
		return "", err
	}
	return out, nil
}

func readEntry(dir string, action []byte) (entry, bool) {
	b, err := os.ReadFile(entryPath(dir, action))
	if err != nil || len(b) > 512 {
		return entry{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[0] != "v1" || f[1] != hex.EncodeToString(action) {
		return entry{}, false
	}
	out, err := hex.DecodeString(f[2])
	if err != nil || len(out) != idLen {
		return entry{}, false
	}
	size, err1 := strconv.ParseInt(f[3], 10, 64)
	nsec, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || size < 0 {
		return entry{}, false
	}
	return entry{output: out, size: size, time: time.Unix(0, nsec)}, true
}

// markUsed refreshes the times of a used entry, at most hourly, as Go's
// cache does, so that trimming keeps what is in use.
func markUsed(paths ...string) {
	now := time.Now()
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && now.Sub(fi.ModTime()) > time.Hour {
			os.Chtimes(p, now, now)
		}
	}
}

func (c *goCache) put(req *goCacheRequest, body []byte, res *goCacheResponse) {
	if len(req.ActionID) != idLen || len(req.OutputID) != idLen {
		res.Err = "bad action or output ID"
		return
	}
	if int64(len(body)) != req.BodySize {
		res.Err = "body size mismatch"
		return
	}
	out := outputPath(c.own, req.OutputID)
	if fi, err := os.Stat(out); err != nil || !fi.Mode().IsRegular() || fi.Size() != req.BodySize {
		if err := writeAtomic(out, body); err != nil {
			res.Err = err.Error()
			return
		}
	}
	now := time.Now()
	line := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, req.BodySize, now.UnixNano())
	if err := writeAtomic(entryPath(c.own, req.ActionID), []byte(line)); err != nil {
		res.Err = err.Error()
		return
	}
	res.DiskPath = out
}

// writeAtomic writes a file whole or not at all: other go commands of the
// same project read the cache at the same time.
func writeAtomic(path string, data []byte) error {
	return fillAtomic(path, bytes.NewReader(data), int64(len(data)), path)
}

// copyAtomic copies the file src of size bytes to path, whole or not at
// all.
func copyAtomic(path, src string, size int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return fillAtomic(path, in, size, src)
}

// fillAtomic writes exactly size bytes from r to path through a temporary
// file in its directory, renamed into place only when whole; from names the
// source in the error when r holds more or less.
func fillAtomic(path string, r io.Reader, size int64, from string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, size+1))
	if err == nil && n != size {
		err = fmt.Errorf("gocache: %s changed while it was copied", from)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Trimming, as Go's own cache does it: at most once a day, remove what
// was not used for five days.
const (
	trimEvery = 24 * time.Hour
	trimAge   = 5 * 24 * time.Hour
)

func (c *goCache) trim(now time.Time) {
	stamp := filepath.Join(c.own, "trim.txt")
	if b, err := os.ReadFile(stamp); err == nil {
		if t, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && now.Sub(time.Unix(t, 0)) < trimEvery {
			return
		}
	}
	writeAtomic(stamp, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"))
	for i := range 256 {
		sub := filepath.Join(c.own, fmt.Sprintf("%02x", i))
		ents, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if !strings.HasSuffix(n, "-a") && !strings.HasSuffix(n, "-d") && !strings.HasPrefix(n, ".tmp-") {
				continue // not an entry: the sync marks expire by themselves
			}
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > trimAge {
				os.Remove(filepath.Join(sub, e.Name()))
			}
		}
	}
}

// RunGoCache is the entry point of "safeexec __gocache OWN HOST [MARK]",
// the GOCACHEPROG that Env sets: it serves the go command on standard
// input and output and returns the exit status.
func RunGoCache(args []string) int {
	if len(args) != 2 && len(args) != 3 {
		fmt.Fprintln(os.Stderr, "safeexec: __gocache: want OWN-CACHE HOST-CACHE [MARK]")
		return 2
	}
	g := GoCache{Own: args[0], Host: args[1]}
	if len(args) == 3 {
		g.Mark = args[2]
	}
	if err := ServeGoCache(g, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: %v\n", err)
		return 1
	}
	return 0
}
