package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// netnsThread runs fn on a locked OS thread inside a new network namespace
// with loopback up, and keeps that thread alive until release is called.
// Sockets fn creates belong to the namespace; a bwrap fn forks from the
// thread starts in it. The thread must outlive the sandbox: bwrap's
// --die-with-parent follows the thread that forked it, not the process.
// Once released (or on failure) the thread ends with its namespace, never
// going back to Go's thread pool.
func netnsThread(fn func() error) (release func(), err error) {
	errc := make(chan error, 1)
	quit := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked, see above
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("new network namespace: %w", err)
			return
		}
		if err := loopbackUp(); err != nil {
			errc <- err
			return
		}
		if err := fn(); err != nil {
			errc <- err
			return
		}
		errc <- nil
		<-quit
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { close(quit) }) }, nil
}

// loopbackUp brings up lo in the calling thread's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// canMakeNetns reports whether this process may create a network
// namespace directly: root with CAP_SYS_ADMIN (not, say, root in a
// container that dropped it).
func canMakeNetns() bool {
	if os.Geteuid() != 0 {
		return false
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[0].Effective&(1<<unix.CAP_SYS_ADMIN) != 0
}
