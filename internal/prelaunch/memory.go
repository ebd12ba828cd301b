package prelaunch

import (
	"bytes"
	"errors"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/safeexec/safeexec/envfilter"
)

// magic starts a remembered launch (version 2: FNV-1a checksums; version
// 1 used SHA-256, which made this package initialise after crypto's).
const magic = "safeexec-ahead-2\n"

// Nested stands for the nested channel's directory in a remembered
// launch: each run makes its own.
const Nested = "\x01nested\x01"

// MaxFile bounds a remembered launch.
const MaxFile = 1 << 20

// sumLen is the length of a checksum in hexadecimal.
const sumLen = 32

// checksum is a remembered launch's checksum, against a file damaged or
// cut short (not against its writer: the user alone can write it, and
// nothing it says runs unless the run computes the same launch itself).
func checksum(b []byte) string {
	h := fnv.New128a()
	h.Write(b)
	return hexString(h.Sum(nil))
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// FileName names the remembered launch of a kind of run: the user, the
// working directory, whether the command is a script, and the flags, in
// stateDir/ahead (a key when stateDir is "").
func FileName(stateDir string, euid int, cwd string, script bool, flags []string) string {
	h := fnv.New128a()
	kind := "argv"
	if script {
		kind = "script"
	}
	h.Write([]byte(strconv.Itoa(euid) + "\x00" + cwd + "\x00" + kind + "\x00"))
	for _, f := range flags {
		h.Write([]byte(f + "\x00"))
	}
	return strings.TrimSuffix(stateDir, "/") + "/ahead/" + hexString(h.Sum(nil))
}

// Encode writes a launch: magic, checksum of the rest, then bwrap's path
// and three counted lists (options, the command's head, environment),
// every string NUL-terminated.
func Encode(path string, opts, head, env []string) []byte {
	var body bytes.Buffer
	put := func(s string) { body.WriteString(s); body.WriteByte(0) }
	put(path)
	for _, list := range [][]string{opts, head, env} {
		put(strconv.Itoa(len(list)))
		for _, s := range list {
			put(s)
		}
	}
	out := make([]byte, 0, len(magic)+sumLen+1+body.Len())
	out = append(out, magic...)
	out = append(out, checksum(body.Bytes())...)
	out = append(out, '\n')
	return append(out, body.Bytes()...)
}

// Decode reads what Encode wrote.
func Decode(b []byte) (path string, opts, head, env []string, err error) {
	bad := errors.New("ahead: damaged")
	rest, ok := bytes.CutPrefix(b, []byte(magic))
	if !ok || len(rest) < sumLen+1 || rest[sumLen] != '\n' {
		return "", nil, nil, nil, bad
	}
	if checksum(rest[sumLen+1:]) != string(rest[:sumLen]) {
		return "", nil, nil, nil, bad
	}
	fields := strings.Split(string(rest[sumLen+1:]), "\x00")
	if len(fields) < 2 || fields[len(fields)-1] != "" {
		return "", nil, nil, nil, bad
	}
	fields = fields[:len(fields)-1]
	path, fields = fields[0], fields[1:]
	var lists [3][]string
	for i := range lists {
		if len(fields) == 0 {
			return "", nil, nil, nil, bad
		}
		n, err := strconv.Atoi(fields[0])
		if err != nil || n < 0 || n > len(fields)-1 {
			return "", nil, nil, nil, bad
		}
		lists[i], fields = fields[1:1+n], fields[1+n:]
	}
	if len(fields) != 0 {
		return "", nil, nil, nil, bad
	}
	return path, lists[0], lists[1], lists[2], nil
}

// Resolve makes a remembered launch (b, as Encode wrote it) the launch of
// a run whose environment is environ and whose command is tail: a
// variable remembered by name takes the run's value (the last, as the
// sandbox keeps it), and the nested channel's placeholder becomes a
// directory made by mkdir, returned as nested (the caller removes it when
// the launch is not used). warm drops the remembered command head: a warm
// sandbox's program is handed the whole command.
func Resolve(b []byte, environ, tail []string, warm bool, mkdir func() (string, error)) (l *Launch, nested string, err error) {
	path, opts, head, env, err := Decode(b)
	if err != nil {
		return nil, "", err
	}
	host := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok {
			host[k] = kv
		}
	}
	var refs []string
	for i, e := range env {
		if name, ok := strings.CutPrefix(e, "="); ok {
			kv, found := host[name]
			if !found {
				return nil, "", errors.New("ahead: a variable is gone")
			}
			env[i] = kv
			refs = append(refs, kv)
		}
	}
	// The policy is not read yet: a value shaped like a credential, which
	// every policy strips unless told to keep it, is not put in the early
	// sandbox's environment on the word of an earlier run.
	if _, stripped := (envfilter.Filter{}).Apply(refs); len(stripped) > 0 {
		return nil, "", errors.New("ahead: a credential in the environment")
	}
	if warm {
		// The whole command, head included (a script's shell and -c),
		// is handed to the warm sandbox's program when it is used; a
		// head that is not the command's (the network bridge) then makes
		// the launches differ, and the warm sandbox goes unused.
		head = nil
	}
	args, err := JoinLaunchArgs(opts, slices.Concat(head, tail))
	if err != nil {
		return nil, "", err
	}
	if contains(args, Nested) || contains(env, Nested) {
		dir, err := mkdir()
		if err != nil {
			return nil, "", err
		}
		for _, list := range [][]string{args, env} {
			for i, s := range list {
				list[i] = strings.ReplaceAll(s, Nested, dir)
			}
		}
		nested = dir
	}
	return &Launch{Path: path, Args: args, Env: env}, nested, nil
}

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// RuntimeDir is where a run makes its private directories (the nested
// channel's, the proxy's sockets): $XDG_RUNTIME_DIR when it is a
// directory (a per-user tmpfs where systemd sets it), else /dev/shm when
// it is a tmpfs, else the temporary directory. A tmpfs because a run
// removes its directory just after bwrap has taken down the sandbox, when
// removing one on a disk's file system waits (~0.5 ms on ext4 here, 40 µs
// on tmpfs); MkdirTemp makes it 0700 with a name no one can guess, as in
// /tmp.
func RuntimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	if isTmpfs(shm) {
		return shm
	}
	return os.TempDir()
}

// shm is the usual tmpfs for shared memory.
const shm = "/dev/shm"

// MakeRunDir makes a private directory named prefix<pid>-* in RuntimeDir,
// or in the temporary directory should that fail (a full /dev/shm). The
// process id in the name lets SweepRunDirs find the directories of runs
// that were killed before they could remove their own.
func MakeRunDir(prefix string) (string, error) {
	prefix += strconv.Itoa(os.Getpid()) + "-"
	dir := RuntimeDir()
	d, err := os.MkdirTemp(dir, prefix)
	if err != nil && dir == shm {
		return os.MkdirTemp(os.TempDir(), prefix)
	}
	return d, err
}

// MakeNested makes a nested channel's directory (MakeRunDir).
func MakeNested() (string, error) { return MakeRunDir(nestedPrefix) }

// The prefixes of the private run directories (safeexec's network runs
// make theirs with netPrefix).
const (
	nestedPrefix = "safeexec-nested-"
	NetPrefix    = "safeexec-net-"
)

// runDirPID is the process id in a run directory's name.
func runDirPID(name string) (int, bool) {
	for _, prefix := range []string{nestedPrefix, NetPrefix} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			num, _, found := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(num)
			return pid, found && err == nil && pid > 0
		}
	}
	return 0, false
}
