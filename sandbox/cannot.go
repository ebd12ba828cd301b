package sandbox

import "os"

// What each backend cannot enforce, one sentence each: doctor prints the
// sentences for the backend in use (Report.Unenforced), every audit
// record repeats them (sandbox.unenforced), and the README lists them all
// (a test keeps the two the same).
const (
	cannotHostTools = "Files a later host tool runs from inside the writable roots are the command's to change (a virtualenv's .pth files and bin/, node_modules/.bin, __pycache__, build scripts, package.json scripts): review them before running them outside the sandbox."
	cannotRoot      = "Run as root, a file owned by root is readable unless deny_read or the built-in root-only list names it."
	cannotReads     = "In compat and permissive mode everything outside deny_read is readable: a secret kept in an unusual place is the command's to read."
	cannotMemory    = "Memory is not limited: a command can fill its RAM-backed temporary directory or allocate until the kernel's OOM killer acts."
	cannotGitNested = "A git repository nested below the roots' own (a vendored one, one made during the run) is writable during the run and judged only after it: git run there by another program meanwhile can run what the command planted."
	cannotGitList   = "Not run as root, the look for planted git hooks and config after the run lists the whole project (its cost grows with it) and takes every hook of a hooks directory whose change time moved, the user's own too (to the quarantine)."

	cannotBwrapMissing = "A protected or masked path that does not exist when the run starts is not blocked during it; what the command creates there is moved to quarantine afterwards, not at all if safeexec is killed with SIGKILL."
	cannotBwrapSockets = "Host unix sockets outside /run, /tmp and the masked paths stay reachable by path (an ssh agent in the home directory): add their directory to deny_read."
	cannotBwrapBridge  = "The in-sandbox bridge (a terminal, or the network where safeexec cannot enter the sandbox's namespaces) shares the command's pid namespace: the command can end it, and with it its own network and terminal."

	cannotLandlockProtected = "Landlock cannot make a path beneath a writable root read-only: protected paths are restored after the run, not blocked during it (not at all if safeexec is killed with SIGKILL)."
	cannotLandlockChmod     = "Landlock cannot stop chmod, chown, utimes or extended-attribute changes of the user's own files, outside the writable roots too (chmod 644 ~/.ssh/id_ed25519)."
	cannotLandlockIPC       = "Without an IPC namespace, SysV shared memory, semaphores and message queues (shmget, semget, msgget) are shared with the user's other programs; POSIX message queues are refused."
	cannotLandlockShm       = "In compat and permissive mode /dev/shm (POSIX shared memory and semaphores) is shared with the user's other programs."
	cannotLandlockProcs     = "Without a pid namespace the command sees every host process in /proc (command lines, not memory or environment)."
	cannotLandlockSignals   = "Below Landlock ABI 6 a signal to another of the user's host processes by its pid cannot be refused (one to safeexec, its process group or kill -1 is)."
	cannotLandlockPort      = "Landlock's TCP rule is per port: a remote host listening on the proxy's port number is reachable directly."
	cannotLandlockOrphans   = "If safeexec is killed with SIGKILL the command dies, but its own children are orphaned, not killed."
	cannotLandlockWeakNet   = "In permissive mode, below ABI 9 (unix sockets) and 10 (UDP), path unix sockets and UDP are not confined."

	cannotSeatbeltUntested = "The profile is generated and checked on Linux; how macOS enforces it is not tested by this repository's CI."
	cannotSeatbeltMetadata = "Metadata (names, sizes, times) of every path is readable, credential paths included."
	cannotSeatbeltProcargs = "Whether the profile hides another process's arguments and environment (sysctl kern.procargs2), safeexec's own included, is not verified."

	cannotWinCredReads  = "Reads of credential paths are not blocked: a write-restricted token reads whatever the user reads, so the classifier alone refuses commands that name them."
	cannotWinNetwork    = "The network allowlist and --no-network are advisory: the proxy variables are set, but without administrator rights sockets are not filtered and a command can connect directly."
	cannotWinPermissive = "In permissive mode writes are not confined: the token has no restricting SIDs and no ACL is changed."
	cannotWinAppData    = "In compat mode %APPDATA% and %LOCALAPPDATA% are writable but for the places the host runs code from that safeexec lists: a per-user program installed elsewhere there (Squirrel installs such as Slack or Discord) is the command's to change."
	cannotWinKilled     = "If safeexec and its helper are both killed, the run's ACL changes stay until the next safeexec start undoes them."

	cannotNone = "Nothing is confined: the command has every right of the user who runs safeexec."
)

// cannotEnforce lists what backend cannot enforce in mode m, for a run by
// root or not, at Landlock ABI abi (Landlock only).
func cannotEnforce(backend string, m Mode, root bool, abi int) []string {
	var out []string
	add := func(ok bool, s string) {
		if ok {
			out = append(out, s)
		}
	}
	reads := m != Strict
	switch backend {
	case "bwrap":
		add(true, cannotHostTools)
		add(true, cannotBwrapMissing)
		add(true, cannotGitNested)
		add(!root, cannotGitList)
		add(root, cannotRoot)
		add(reads, cannotReads)
		add(true, cannotBwrapSockets)
		add(true, cannotBwrapBridge)
		add(true, cannotMemory)
	case "landlock":
		add(true, cannotHostTools)
		add(true, cannotLandlockProtected)
		add(true, cannotLandlockChmod)
		add(true, cannotGitNested)
		add(!root, cannotGitList)
		add(root, cannotRoot)
		add(reads, cannotReads)
		add(true, cannotLandlockIPC)
		add(reads, cannotLandlockShm)
		add(true, cannotLandlockProcs)
		add(abi < 6, cannotLandlockSignals)
		add(true, cannotLandlockPort)
		add(true, cannotLandlockOrphans)
		add(m == Permissive && abi < 10, cannotLandlockWeakNet)
		add(true, cannotMemory)
	case "seatbelt":
		add(true, cannotSeatbeltUntested)
		add(true, cannotHostTools)
		add(reads, cannotReads)
		add(true, cannotSeatbeltMetadata)
		add(true, cannotSeatbeltProcargs)
	case "windows":
		add(true, cannotWinCredReads)
		add(true, cannotWinNetwork)
		add(m == Permissive, cannotWinPermissive)
		add(m == Compat, cannotWinAppData)
		add(m != Permissive, cannotWinKilled)
		add(m != Permissive, cannotHostTools)
	case "none":
		add(true, cannotNone)
	}
	return out
}

// allCannotEnforce is every sentence cannotEnforce can give, per backend.
func allCannotEnforce() map[string][]string {
	all := map[string][]string{}
	for _, b := range []string{"bwrap", "landlock", "seatbelt", "windows", "none"} {
		seen := map[string]bool{}
		for _, m := range []Mode{Strict, Compat, Permissive} {
			for _, root := range []bool{false, true} {
				for _, abi := range []int{4, 9, 10} {
					for _, s := range cannotEnforce(b, m, root, abi) {
						if !seen[s] {
							seen[s] = true
							all[b] = append(all[b], s)
						}
					}
				}
			}
		}
	}
	return all
}

// AllCannotEnforce returns every sentence doctor may print about what a
// backend cannot enforce, per backend name (for the README's test).
func AllCannotEnforce() map[string][]string { return allCannotEnforce() }

// hostLandlockABI is set by landlock_linux.go.
var hostLandlockABI = func() int { return 0 }

func runningAsRoot() bool { return os.Geteuid() == 0 }
