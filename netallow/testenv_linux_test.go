package netallow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The network tests run in a child of the test binary that has its own
// mount and network namespaces: /etc/hosts and /etc/resolv.conf there are
// the test's (bind-mounted over the real ones), loopback carries a few
// extra addresses that stand for public hosts, a metadata endpoint and a
// private network, and a small DNS server on 127.0.0.1:53 records every
// name it is asked for. Nothing in the product knows about any of it.

const nsMarker = "NETALLOW_TEST_IN_NAMESPACE"

var testEnvErr error

// Test addresses: publicIP and deniedIP stand for ordinary Internet hosts
// (TEST-NET-2, which the guard does not refuse).
var (
	publicIP  = netip.MustParseAddr("198.51.100.1")
	deniedIP  = netip.MustParseAddr("198.51.100.2")
	metaIP    = netip.MustParseAddr("169.254.169.254")
	privateIP = netip.MustParseAddr("10.1.2.3")
)

const testHosts = `127.0.0.1 localhost
::1 localhost
198.51.100.1 allowed.test www.allowed.test a.b.wild.test c.wild.test wild.test port.test other.test
198.51.100.2 denied.test bad.wild.test
169.254.169.254 meta.test
127.0.0.1 lo.test
10.1.2.3 private.test
`

// dnsNames are answered by the test DNS server (not in the hosts file).
var dnsNames = map[string]netip.Addr{
	"dns-allowed.test": publicIP,
	"dns-meta.test":    metaIP,
}

func runTests(m *testing.M) int {
	if os.Getenv(nsMarker) != "" {
		// Only ever change mounts and addresses in namespaces of our
		// own, never the parent's: the marker alone proves nothing
		// (it may be set by hand).
		own, parent := namespaces("self"), namespaces(strconv.Itoa(os.Getppid()))
		if own == "" || parent == "" || sharesAny(own, parent) {
			testEnvErr = errors.New("refusing to set up the test environment outside a private namespace")
			return m.Run()
		}
		dir, err := setupNamespace()
		testEnvErr = err
		code := m.Run()
		if dir != "" {
			os.RemoveAll(dir)
		}
		return code
	}
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzzworker") {
			testEnvErr = errors.New("fuzz worker")
			return m.Run()
		}
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Env = append(os.Environ(), nsMarker+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWNET}
	if os.Getuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	if err := cmd.Start(); err != nil {
		testEnvErr = fmt.Errorf("new mount and network namespace: %w", err)
		return m.Run()
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "test child:", err)
		return 1
	}
	return 0
}

// namespaces identifies the mount and network namespaces of a process
// ("self" or a pid).
func namespaces(pid string) string {
	mnt, err1 := os.Readlink("/proc/" + pid + "/ns/mnt")
	netns, err2 := os.Readlink("/proc/" + pid + "/ns/net")
	if err1 != nil || err2 != nil {
		return ""
	}
	return mnt + "," + netns
}

// sharesAny reports whether two namespaces() values share a namespace.
func sharesAny(a, b string) bool {
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	for _, x := range as {
		for _, y := range bs {
			if x == y {
				return true
			}
		}
	}
	return false
}

// setupNamespace runs in the child: private mounts, the test hosts and
// resolver files, loopback addresses and the DNS server.
func setupNamespace() (string, error) {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return "", fmt.Errorf("make mounts private: %w", err)
	}
	dir, err := os.MkdirTemp("", "netallow-test-")
	if err != nil {
		return "", err
	}
	for name, content := range map[string]string{
		"hosts":       testHosts,
		"resolv.conf": "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return dir, err
		}
		if err := syscall.Mount(p, "/etc/"+name, "", syscall.MS_BIND, ""); err != nil {
			return dir, fmt.Errorf("bind %s over /etc/%s: %w", p, name, err)
		}
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		return dir, errors.New("the ip command (iproute2) is needed to set up loopback addresses")
	}
	cmds := [][]string{{"link", "set", "lo", "up"}}
	for _, a := range []netip.Addr{publicIP, deniedIP, metaIP, privateIP} {
		cmds = append(cmds, []string{"addr", "add", a.String() + "/32", "dev", "lo"})
	}
	for _, args := range cmds {
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			return dir, fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if err := startDNS(); err != nil {
		return dir, err
	}
	return dir, nil
}

var dnsLog struct {
	sync.Mutex
	names []string
}

// dnsQueried reports whether the test DNS server was asked for name.
func dnsQueried(name string) bool { return dnsQueries(name) > 0 }

// dnsQueries counts the queries for name (A and AAAA count apart).
func dnsQueries(name string) int {
	dnsLog.Lock()
	defer dnsLog.Unlock()
	n := 0
	for _, q := range dnsLog.names {
		if q == name {
			n++
		}
	}
	return n
}

func startDNS() error {
	pc, err := net.ListenPacket("udp", "127.0.0.1:53")
	if err != nil {
		return fmt.Errorf("test DNS server: %w", err)
	}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply := dnsAnswer(buf[:n]); reply != nil {
				pc.WriteTo(reply, from)
			}
		}
	}()
	return nil
}

// dnsAnswer answers one query: an A record for the names in dnsNames, no
// data for their other types, NXDOMAIN for everything else.
func dnsAnswer(q []byte) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:]) != 1 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if l > 63 || i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	question := q[12 : i+5]
	name := strings.ToLower(strings.Join(labels, "."))
	dnsLog.Lock()
	dnsLog.names = append(dnsLog.names, name)
	dnsLog.Unlock()

	addr, known := dnsNames[name]
	r := make([]byte, 12, 64)
	copy(r, q[:2])
	flags := uint16(0x8180)
	if !known {
		flags |= 3 // NXDOMAIN
	}
	binary.BigEndian.PutUint16(r[2:], flags)
	binary.BigEndian.PutUint16(r[4:], 1)
	r = append(r, question...)
	if known && qtype == 1 {
		binary.BigEndian.PutUint16(r[6:], 1)
		a := addr.As4()
		r = append(r, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, a[0], a[1], a[2], a[3])
	}
	return r
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
