package sandbox

// Without root, bwrap makes the sandbox's user and network namespaces
// itself, and safeexec (many-threaded, a Go program) cannot join them:
// setns into a user namespace needs a single-threaded caller. Its owner
// may still enter them from a single-threaded process. nsOpener is such a
// process: a fork of safeexec that runs nothing but raw system calls,
// joins the sandbox's namespaces and, on request over a socket pair,
// opens loopback listeners in there and hands their descriptors back.
// The proxy then accepts on them directly, as it does when safeexec made
// the network namespace itself as root: no bridge process has to start
// inside the sandbox before the command.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nsRequestLen is one request: family (int32), port (int32), address (16
// bytes, the first 4 for IPv4).
const nsRequestLen = 24

// nsChild is everything the child touches, allocated before the fork.
type nsChild struct {
	userFD, netFD, sock uintptr
	req                 [nsRequestLen]byte
	errno               [4]byte
	iov                 unix.Iovec
	// The two answers, prepared by the parent: the child stores no
	// pointer (a write barrier is runtime code).
	msgErr, msgFD unix.Msghdr
	cmsg          [24]byte // one SCM_RIGHTS header and descriptor
	sa4           unix.RawSockaddrInet4
	sa6           unix.RawSockaddrInet6
	pause         unix.Timespec
	// drop are safeexec's anonymous memory regions: left out of the fork
	// but for the child's stack, this struct and the TLS (see nsForkChild).
	drop  [64][2]uintptr
	ndrop int
	tls   uintptr // the forking thread's thread pointer; 0: unknown
}

// nsOpener is the parent's end.
type nsOpener struct {
	mu   sync.Mutex
	pid  int
	sock int
}

// startNSOpener forks the opener into the user and network namespaces of
// the process pid (the sandbox's init).
func startNSOpener(pid int) (*nsOpener, error) {
	netFD, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's network namespace: %w", err)
	}
	defer unix.Close(netFD)
	// The user namespace that owns the network namespace: the one whose
	// capabilities entering it takes.
	userFD, err := unix.IoctlRetInt(netFD, unix.NS_GET_USERNS)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's user namespace: %w", err)
	}
	defer unix.Close(userFD)
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket pair: %w", err)
	}
	c := &nsChild{userFD: uintptr(userFD), netFD: uintptr(netFD), sock: uintptr(pair[1])}
	c.iov.Base = &c.errno[0]
	c.iov.SetLen(len(c.errno))
	c.pause.Nsec = 1e6
	// The descriptor's header is written here; the child fills in only
	// the descriptor itself.
	h := (*unix.Cmsghdr)(unsafe.Pointer(&c.cmsg[0]))
	h.SetLen(unix.CmsgLen(4))
	h.Level, h.Type = unix.SOL_SOCKET, unix.SCM_RIGHTS
	for _, m := range []*unix.Msghdr{&c.msgErr, &c.msgFD} {
		m.Iov = &c.iov
		m.SetIovlen(1)
	}
	c.msgFD.Control = &c.cmsg[0]
	c.msgFD.SetControllen(unix.CmsgSpace(4))
	c.ndrop = anonRegions(c.drop[:])
	child, errno := nsForkLocked(c)
	runtime.KeepAlive(c)
	unix.Close(pair[1])
	if errno != 0 {
		unix.Close(pair[0])
		return nil, fmt.Errorf("fork: %w", errno)
	}
	return &nsOpener{pid: int(child), sock: pair[0]}, nil
}

// nsForks makes one fork at a time: a fork's regions left out (drop) must
// not be another's stack.
var nsForks sync.Mutex

// nsForkLocked forks with every signal blocked in the forking thread, so
// that no Go signal handler runs in the child.
func nsForkLocked(c *nsChild) (uintptr, syscall.Errno) {
	nsForks.Lock()
	defer nsForks.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.tls = threadPointer()
	all, old := ^uint64(0), uint64(0)
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		return 0, e
	}
	pid, errno := nsForkChild(c)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	return pid, errno
}

// nsForkChild forks; the child joins the namespaces and serves requests
// until its socket reaches end of file. Between fork and exit the child
// may only make raw system calls: no allocation, no stack growth, no
// runtime.
//
//go:norace
//go:nosplit
func nsForkChild(c *nsChild) (pid uintptr, errno syscall.Errno) {
	var (
		r1     uintptr
		e      syscall.Errno
		fd     uintptr
		family uintptr
		port   uint32
		salen  uintptr
		sa     uintptr
		try    int
		opened bool
		msg    uintptr
	)
	// The child needs only its stack (this frame and the system calls'
	// below it) and c: the rest of safeexec's memory is left out of the
	// fork (MADV_DONTFORK), which then copies a few pages instead of the
	// page tables of all of them, and leaves the parent no copy-on-write
	// faults afterwards (each costs tens of microseconds on a virtual
	// machine). A region the child did touch would kill it with SIGSEGV
	// before it entered the namespaces: the run then falls back to the
	// bridge (errJoinNetns), as for any failure of the opener.
	var keep [3][2]uintptr
	sp := uintptr(unsafe.Pointer(&r1))
	keep[0] = [2]uintptr{(sp - nsStackBelow) &^ (pageSize - 1), (sp + nsStackAbove + pageSize - 1) &^ (pageSize - 1)}
	cp := uintptr(unsafe.Pointer(c))
	keep[1] = [2]uintptr{cp &^ (pageSize - 1), (cp + unsafe.Sizeof(*c) + pageSize - 1) &^ (pageSize - 1)}
	// The thread's TLS (Go reloads its g from there around assembly).
	keep[2] = [2]uintptr{(c.tls - pageSize) &^ (pageSize - 1), (c.tls + pageSize + pageSize - 1) &^ (pageSize - 1)}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if keep[j][0] < keep[i][0] {
				keep[i], keep[j] = keep[j], keep[i]
			}
		}
	}
	if c.tls == 0 {
		c.ndrop = 0
	}
	for i := 0; i < c.ndrop; i++ {
		adviseOutside(c.drop[i][0], c.drop[i][1], &keep, unix.MADV_DONTFORK)
	}
	r1, _, e = syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e != 0 || r1 != 0 {
		// The parent.
		for i := 0; i < c.ndrop; i++ {
			adviseOutside(c.drop[i][0], c.drop[i][1], &keep, unix.MADV_DOFORK)
		}
		return r1, e
	}
	if _, _, e = syscall.RawSyscall(unix.SYS_SETNS, c.userFD, unix.CLONE_NEWUSER, 0); e != 0 {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 3, 0, 0)
	}
	if _, _, e = syscall.RawSyscall(unix.SYS_SETNS, c.netFD, unix.CLONE_NEWNET, 0); e != 0 {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 4, 0, 0)
	}
	// Nothing of safeexec's stays open here but the socket: not the
	// parent's end of it (or end of file would never come), not the
	// sandbox's pipes.
	if c.sock > 0 {
		syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 0, c.sock-1, 0)
	}
	syscall.RawSyscall(unix.SYS_CLOSE_RANGE, c.sock+1, ^uintptr(0)>>32, 0)
	for {
		r1, _, e = syscall.RawSyscall(syscall.SYS_READ, c.sock, uintptr(unsafe.Pointer(&c.req[0])), nsRequestLen)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || r1 != nsRequestLen {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		family = uintptr(uint32(c.req[0]) | uint32(c.req[1])<<8 | uint32(c.req[2])<<16 | uint32(c.req[3])<<24)
		port = uint32(c.req[4]) | uint32(c.req[5])<<8
		if family == unix.AF_INET6 {
			c.sa6.Family = unix.AF_INET6
			c.sa6.Port = uint16(port>>8 | port<<8&0xff00)
			for i := 0; i < 16; i++ {
				c.sa6.Addr[i] = c.req[8+i]
			}
			sa, salen = uintptr(unsafe.Pointer(&c.sa6)), unsafe.Sizeof(c.sa6)
		} else {
			c.sa4.Family = unix.AF_INET
			c.sa4.Port = uint16(port>>8 | port<<8&0xff00)
			for i := 0; i < 4; i++ {
				c.sa4.Addr[i] = c.req[8+i]
			}
			sa, salen = uintptr(unsafe.Pointer(&c.sa4)), unsafe.Sizeof(c.sa4)
		}

		fd, _, e = syscall.RawSyscall(syscall.SYS_SOCKET, family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if e == 0 {
			// bwrap brings the loopback up in the new namespace at its
			// own pace: until then its address cannot be bound.
			for try = 0; try < 1000; try++ {
				_, _, e = syscall.RawSyscall(syscall.SYS_BIND, fd, sa, salen)
				if e != syscall.EADDRNOTAVAIL {
					break
				}
				syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&c.pause)), 0, 0)
			}
			if e == 0 {
				_, _, e = syscall.RawSyscall(syscall.SYS_LISTEN, fd, 4096, 0)
			}
			if e != 0 {
				syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
			}
		}
		opened = e == 0
		c.errno[0], c.errno[1], c.errno[2], c.errno[3] = byte(e), byte(e>>8), byte(e>>16), byte(e>>24)
		msg = uintptr(unsafe.Pointer(&c.msgErr))
		if opened {
			*(*int32)(unsafe.Pointer(&c.cmsg[unix.SizeofCmsghdr])) = int32(fd)
			msg = uintptr(unsafe.Pointer(&c.msgFD))
		}
		for {
			_, _, e = syscall.RawSyscall(syscall.SYS_SENDMSG, c.sock, msg, 0)
			if e != syscall.EINTR {
				break
			}
		}
		if opened {
			syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
		}
		if e != 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 5, 0, 0)
		}
	}
}

// pageSize is the page size where the regions are left out (amd64, where
// threadPointer is known); madvise wants its multiples.
const pageSize = 4096

// The child's stack: what nsForkChild's frame and the system calls it
// makes can use below and above the address of one of its variables.
const (
	nsStackBelow = 16 << 10
	nsStackAbove = 4 << 10
)

// adviseOutside gives advice to the pages of [lo, hi) outside the
// ranges of keep (sorted by start).
//
//go:norace
//go:nosplit
func adviseOutside(lo, hi uintptr, keep *[3][2]uintptr, advice uintptr) {
	for i := 0; i <= len(keep); i++ {
		end := hi
		if i < len(keep) {
			end = min(hi, keep[i][0])
		}
		if end > lo {
			syscall.RawSyscall(syscall.SYS_MADVISE, lo, end-lo, advice)
		}
		if i < len(keep) {
			lo = max(lo, keep[i][1])
		}
		if lo >= hi {
			return
		}
	}
}

// anonRegions fills out with the process's private, writable, anonymous
// memory regions (the Go heap and the runtime's own) and says how many;
// not the one right after a file's (a binary's bss: code built for
// coverage counts there, the child's included). None when
// /proc/self/maps cannot be read: the fork then copies everything.
func anonRegions(out [][2]uintptr) int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0
	}
	n := 0
	var prevEnd uintptr
	prevFile := false
	for len(b) > 0 && n < len(out) {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		// start-end perms offset dev inode [path]
		f := bytes.Fields(line)
		if len(f) < 5 {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte{'-'})
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		file := len(f) >= 6 && f[5][0] == '/'
		anon := string(f[4]) == "0" && (len(f) < 6 || string(f[5]) == "[heap]")
		if anon && string(f[1]) == "rw-p" && !(prevFile && uintptr(start) == prevEnd) {
			out[n] = [2]uintptr{uintptr(start), uintptr(end)}
			n++
		}
		prevEnd, prevFile = uintptr(end), file
	}
	return n
}

// listen opens a listener on host:port ("127.0.0.1" or "::1") inside the
// namespaces, with network "tcp4" or "tcp6".
func (o *nsOpener) listen(network, host string, port int) (net.Listener, error) {
	ip := net.ParseIP(host)
	var req [nsRequestLen]byte
	switch {
	case network == "tcp4" && ip.To4() != nil:
		binary.LittleEndian.PutUint32(req[0:], unix.AF_INET)
		copy(req[8:], ip.To4())
	case network == "tcp6" && ip.To4() == nil && ip.To16() != nil:
		binary.LittleEndian.PutUint32(req[0:], unix.AF_INET6)
		copy(req[8:], ip.To16())
	default:
		return nil, fmt.Errorf("listen in the sandbox: %s %s: unsupported address", network, host)
	}
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("listen in the sandbox: port %d", port)
	}
	binary.LittleEndian.PutUint32(req[4:], uint32(port))
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := unix.Write(o.sock, req[:]); err != nil {
		return nil, fmt.Errorf("listen in the sandbox: %w", o.exitErr(err))
	}
	var errb [4]byte
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(o.sock, errb[:], oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != len(errb) {
		if err == nil {
			err = errors.New("no answer")
		}
		return nil, fmt.Errorf("listen in the sandbox: %w", o.exitErr(err))
	}
	if e := syscall.Errno(binary.LittleEndian.Uint32(errb[:])); e != 0 {
		return nil, fmt.Errorf("listen in the sandbox on %s: %w", net.JoinHostPort(host, strconv.Itoa(port)), e)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("listen in the sandbox: no descriptor came back")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("listen in the sandbox: no descriptor came back")
	}
	f := os.NewFile(uintptr(fds[0]), "sandbox listener")
	defer f.Close()
	return net.FileListener(f)
}

// exitErr says how the opener ended when it stopped answering.
func (o *nsOpener) exitErr(err error) error {
	var ws syscall.WaitStatus
	if pid, werr := syscall.Wait4(o.pid, &ws, syscall.WNOHANG, nil); werr == nil && pid == o.pid {
		o.pid = 0
		switch ws.ExitStatus() {
		case 3:
			return errors.New("could not enter the sandbox's user namespace")
		case 4:
			return errors.New("could not enter the sandbox's network namespace")
		}
		return fmt.Errorf("the opener exited (%v)", ws)
	}
	return err
}

// close ends the opener and reaps it.
func (o *nsOpener) close() {
	if o == nil {
		return
	}
	unix.Close(o.sock)
	if o.pid > 0 {
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(o.pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		o.pid = 0
	}
}
