package sandbox

// What changed during a run, without listing what did not.
//
// When safeexec may use them (it runs as root: filesystem marks need
// CAP_SYS_ADMIN, turning a file handle back into a path needs
// CAP_DAC_READ_SEARCH), a fanotify group with a filesystem mark on each
// file system holding a writable root reports every directory in which an
// entry was created, moved in, written (closed after writing) or had its
// attributes changed, with the entry's name (FAN_REPORT_DFID_NAME). The
// kernel queues an event before the system call that caused it returns,
// so once every process of the sandbox is gone the queue holds all of
// them. A goroutine drains it while the command runs and keeps one record
// per directory (its file handle), plus the names of directories created
// or moved into it; nothing runs when nothing happens.
//
// The goroutine reads in batches: woken by an event, it drains the queue,
// lets events gather, drains again, and so on until a drain finds the
// queue empty. Waking costs the runtime far more than reading an event
// does (a go test of a small module brings about a hundred events; read
// as they came, the wake-ups were a third of safeexec's own CPU time). It
// learns of events through an epoll instance holding the queue one-shot
// (reported once, then not until re-armed), in Go's poller: events that
// arrive during a pause wake nothing, and no thread blocks in a system
// call (Go's monitor thread polls while one does). A pause lasts
// fanBatch, less when events come faster than fanBatchBytes in that time:
// a quiet run wakes the reader a few times a second, a busy one once per
// fanBatchBytes of events, and the queue holds about that much.

// The group sees the whole file system, host programs included: what
// they change inside the roots is judged too, and directories outside the
// roots are dropped once resolved. When the queue overflows, the records
// grow past their bound, or a handle cannot be resolved, the watch gives
// up and the sweep lists the roots instead (gitsweep_linux.go).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// fanMask are the events watched: entries created or moved in (also
// directories), files closed after writing, attribute changes (chmod +x,
// a new hard link).
const fanMask = unix.FAN_CREATE | unix.FAN_MOVED_TO | unix.FAN_CLOSE_WRITE | unix.FAN_ATTRIB | unix.FAN_ONDIR

// fanMaxDirs bounds the directories recorded; beyond it the watch gives up.
var fanMaxDirs = 1 << 18

// fanDisabled makes newFanWatch refuse, for tests of the listing sweep.
var fanDisabled bool

// fanBatch is the longest the reader lets events gather in the queue
// after draining it; a drain that read more than fanBatchBytes of events
// makes the next pause shorter (not below fanBatchMin), so the queue holds
// about that much.
var (
	fanBatch      = 250 * time.Millisecond
	fanBatchMin   = 5 * time.Millisecond
	fanBatchBytes = 256 << 10
)

// fanDir is what happened in one directory.
type fanDir struct {
	// made are the names of directories created or moved into it.
	made map[string]bool
}

type fanWatch struct {
	fd int
	// ep is an epoll instance holding fd one-shot, in Go's poller as
	// epf: it reports the queue once, then nothing until read re-arms it.
	ep     int
	epf    *os.File
	mounts map[[2]int32]int // a directory on each marked file system (open_by_handle_at refuses O_PATH)
	quit   chan struct{}    // closed by stop

	mu sync.Mutex
	// dirs are keyed by the event's directory record as the kernel
	// writes it: fsid (8 bytes), handle length and type (4 each), handle.
	dirs    map[string]*fanDir
	failed  string // why the watch gave up, "" while it holds
	wakeups int    // times the reader woke to drain the queue
	done    chan struct{}
}

// newFanWatch marks the file systems of dirs (existing directories). It
// fails when fanotify, filesystem marks or handle resolution are not
// available to this process.
func newFanWatch(dirs []string) (*fanWatch, error) {
	if fanDisabled {
		return nil, errors.New("disabled")
	}
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_REPORT_DFID_NAME|unix.FAN_UNLIMITED_QUEUE|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK,
		unix.O_RDONLY|unix.O_LARGEFILE|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	fw := &fanWatch{fd: fd, ep: ep, mounts: map[[2]int32]int{}, dirs: make(map[string]*fanDir, 64),
		quit: make(chan struct{}), done: make(chan struct{})}
	fail := func(err error) (*fanWatch, error) {
		for _, m := range fw.mounts {
			unix.Close(m)
		}
		unix.Close(fd)
		unix.Close(ep)
		return nil, err
	}
	if err := fw.arm(unix.EPOLL_CTL_ADD); err != nil {
		return fail(err)
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		return fail(err)
	}
	for _, d := range dirs {
		m, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail(err)
		}
		var sfs unix.Statfs_t
		if err := unix.Fstatfs(m, &sfs); err != nil {
			unix.Close(m)
			return fail(err)
		}
		fsid := sfs.Fsid.Val
		if _, ok := fw.mounts[fsid]; ok {
			unix.Close(m)
			continue
		}
		fw.mounts[fsid] = m
		// The handle of the directory itself must come back as a path,
		// or no event could be placed.
		h, _, err := unix.NameToHandleAt(m, "", unix.AT_EMPTY_PATH)
		if err != nil {
			return fail(err)
		}
		if _, err := fw.resolve(fsid, h); err != nil {
			return fail(err)
		}
		if err := unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM, fanMask, unix.AT_FDCWD, d); err != nil {
			return fail(err)
		}
	}
	fw.epf = os.NewFile(uintptr(ep), "fanotify epoll")
	go fw.read()
	return fw, nil
}

// arm (re-)adds the queue to the epoll instance, to be reported once.
func (fw *fanWatch) arm(op int) error {
	return unix.EpollCtl(fw.ep, op, fw.fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(fw.fd)})
}

// read drains the queue in batches until stop.
func (fw *fanWatch) read() {
	defer close(fw.done)
	bp := getEventBuf()
	defer putEventBuf(bp)
	buf := *bp
	rc, err := fw.epf.SyscallConn()
	if err != nil {
		fw.giveUp("waiting for events: " + err.Error())
		return
	}
	var evs [1]unix.EpollEvent
	var werr error
	ready := func(uintptr) bool {
		n, err := unix.EpollWait(fw.ep, evs[:], 0)
		if err != nil && err != unix.EINTR {
			werr = err
			return true
		}
		return n > 0
	}
	pause := time.NewTimer(time.Hour)
	pause.Stop()
	for {
		// Wait until the queue holds events (taking the one report),
		// or stop.
		if err := rc.Read(ready); err != nil || werr != nil {
			select {
			case <-fw.quit:
			default:
				fw.giveUp(fmt.Sprintf("waiting for events: %v", errors.Join(err, werr)))
			}
			return
		}
		// Drain the queue, let events gather (unless stopped), drain
		// again, until a drain finds nothing.
		d := fanBatch
		for {
			fw.mu.Lock()
			fw.wakeups++
			fw.mu.Unlock()
			n, ok := fw.drain(buf)
			if !ok {
				return
			}
			if n == 0 {
				break
			}
			d = nextPause(d, n)
			pause.Reset(d)
			select {
			case <-pause.C:
			case <-fw.quit:
				return
			}
		}
		// Report the queue again: at once if events came since the
		// drain.
		if err := fw.arm(unix.EPOLL_CTL_MOD); err != nil {
			fw.giveUp("waiting for events: " + err.Error())
			return
		}
	}
}

// nextPause is the pause after one of pause that brought n bytes of
// events: as long as fanBatchBytes would take to come at that rate,
// within fanBatchMin and fanBatch.
func nextPause(pause time.Duration, n int) time.Duration {
	return min(max(time.Duration(float64(pause)*float64(fanBatchBytes)/float64(n)), fanBatchMin), fanBatch)
}

// drain reads the queue until it is empty and returns how many bytes of
// events it read; false when reading failed (the watch gave up).
func (fw *fanWatch) drain(buf []byte) (int, bool) {
	total := 0
	for {
		n, err := unix.Read(fw.fd, buf)
		if n > 0 {
			fw.parse(buf[:n])
			total += n
		}
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return total, true
		case err != nil:
			fw.giveUp("reading the events: " + err.Error())
			return total, false
		case n <= 0:
			return total, true
		}
	}
}

// stop reads what is left in the queue (the sandbox is gone: nothing can
// add to it for the run any more) and ends the watch. The group is closed
// in the background: the kernel may wait for a grace period there.
func (fw *fanWatch) stop() {
	close(fw.quit)
	fw.epf.SetReadDeadline(time.Now())
	<-fw.done
	fw.epf.Close()
	bp := getEventBuf()
	defer putEventBuf(bp)
	fw.drain(*bp)
	go unix.Close(fw.fd)
}

// close releases the resolution descriptors.
func (fw *fanWatch) close() {
	for _, m := range fw.mounts {
		unix.Close(m)
	}
}

func (fw *fanWatch) giveUp(why string) {
	fw.mu.Lock()
	if fw.failed == "" {
		fw.failed = why
		fw.dirs = nil
	}
	fw.mu.Unlock()
}

// parse records the events in b: struct fanotify_event_metadata (24
// bytes), then information records, of which the DFID_NAME one holds
// the file system id, the directory's file handle and the entry's name.
func (fw *fanWatch) parse(b []byte) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.failed != "" {
		return
	}
	for len(b) >= unix.FAN_EVENT_METADATA_LEN {
		evLen := int(binary.NativeEndian.Uint32(b[0:4]))
		metaLen := int(binary.NativeEndian.Uint16(b[6:8]))
		mask := binary.NativeEndian.Uint64(b[8:16])
		if evLen < metaLen || evLen > len(b) || metaLen < unix.FAN_EVENT_METADATA_LEN {
			fw.failed, fw.dirs = "a malformed event", nil
			return
		}
		ev := b[:evLen]
		b = b[evLen:]
		if mask&unix.FAN_Q_OVERFLOW != 0 {
			fw.failed, fw.dirs = "the event queue overflowed", nil
			return
		}
		for info := ev[metaLen:]; len(info) >= 4; {
			typ := info[0]
			ilen := int(binary.NativeEndian.Uint16(info[2:4]))
			if ilen < 4 || ilen > len(info) {
				break
			}
			rec := info[4:ilen]
			info = info[ilen:]
			if typ != unix.FAN_EVENT_INFO_TYPE_DFID_NAME && typ != unix.FAN_EVENT_INFO_TYPE_DFID {
				continue
			}
			// fsid (2 × s32), struct file_handle {u32 bytes; s32 type;
			// handle[bytes]}, then the name, NUL-terminated. The
			// directory's part is the key as it is (no copy to look it
			// up: most events are in a directory already recorded).
			if len(rec) < 16 {
				continue
			}
			hb := int(binary.NativeEndian.Uint32(rec[8:12]))
			if hb > len(rec)-16 {
				continue
			}
			key := rec[:16+hb]
			d := fw.dirs[string(key)]
			if d == nil {
				if len(fw.dirs) >= fanMaxDirs {
					fw.failed, fw.dirs = "too many directories changed", nil
					return
				}
				d = &fanDir{}
				fw.dirs[string(key)] = d
			}
			if mask&unix.FAN_ONDIR != 0 && mask&(unix.FAN_CREATE|unix.FAN_MOVED_TO) != 0 && typ == unix.FAN_EVENT_INFO_TYPE_DFID_NAME {
				name := rec[16+hb:]
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				if d.made == nil {
					d.made = map[string]bool{}
				}
				if !d.made[string(name)] {
					d.made[string(name)] = true
				}
			}
		}
	}
}

// resolve turns a directory's handle into its path now.
func (fw *fanWatch) resolve(fsid [2]int32, h unix.FileHandle) (string, error) {
	m, ok := fw.mounts[fsid]
	if !ok {
		return "", errors.New("an event on a file system that was not marked")
	}
	fd, err := unix.OpenByHandleAt(m, h, unix.O_PATH|unix.O_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", err
	}
	return p, nil
}

// changed returns the directories (their paths now) in which something
// happened, with the directories made in each; ok is false when the
// watch gave up (the caller must list the roots instead), with why.
func (fw *fanWatch) changed() (map[string]*fanDir, string) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.failed != "" {
		return nil, fw.failed
	}
	out := make(map[string]*fanDir, len(fw.dirs))
	for k, d := range fw.dirs {
		var fsid [2]int32
		fsid[0] = int32(binary.NativeEndian.Uint32([]byte(k[0:4])))
		fsid[1] = int32(binary.NativeEndian.Uint32([]byte(k[4:8])))
		htype := int32(binary.NativeEndian.Uint32([]byte(k[12:16])))
		p, err := fw.resolve(fsid, unix.NewFileHandle(htype, []byte(k[16:])))
		if err != nil {
			if errors.Is(err, unix.ESTALE) || errors.Is(err, unix.ENOENT) {
				continue // removed since: nothing there to judge
			}
			return nil, "resolving a changed directory: " + err.Error()
		}
		if strings.HasSuffix(p, " (deleted)") || !strings.HasPrefix(p, "/") {
			continue
		}
		if prev, ok := out[p]; ok {
			for n := range d.made {
				if prev.made == nil {
					prev.made = map[string]bool{}
				}
				prev.made[n] = true
			}
			continue
		}
		out[p] = d
	}
	return out, ""
}
