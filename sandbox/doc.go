// Package sandbox runs a command confined by the operating system's
// sandbox, as a [Policy] describes: which directories are writable, which
// paths are unreadable or read-only, whether the network is reachable.
//
// [Detect] picks a [Backend] and explains the choice in a [Report]; the
// backend's Start returns a [Process] whose Wait reports a [Status]. A
// backend fails closed: when the policy cannot be enforced nothing runs and
// the error wraps [ErrUnavailable] or says why. [None] runs a command
// unconfined and exists only for an explicit --sandbox none.
//
// # Linux: bwrap
//
// The bwrap backend builds one bubblewrap command line from the policy
// (portable code, golden-tested) and runs it directly, with no helper
// process in between when the network is off:
//
//   - namespaces: user, pid, ipc, uts, net (and cgroup where possible);
//     --die-with-parent, --new-session, --disable-userns, capabilities
//     dropped; a seccomp filter built in Go (see below) handed over a pipe;
//   - compat: the host's / read-only, fresh /proc and /dev, the project's
//     temporary directory (Policy.TempDir; else a private tmpfs) on /tmp
//     (the command's $TMPDIR), private tmpfs on /var/tmp and /run (so host
//     daemons' sockets, the session bus, ssh and gpg agents are out of
//     reach), the home directory and $PATH directories that lie there
//     bound back read-only, the writable roots bound read-write,
//     safeexec's directory of all projects (Policy.Private) hidden but for
//     this project's caches, then the protected paths read-only, then the
//     deny_read paths masked (directories by an empty tmpfs, files by
//     /dev/null; a path that is a symlink is masked where it leads);
//   - strict: only /usr /bin /sbin /lib* /etc /opt read-only, the first
//     writable root and the cache directory;
//   - permissive: / writable; the namespaces, masks, protected paths and
//     the seccomp filter remain. [Assess] marks it weak.
//
// Protected paths (deny_write, e.g. .git/hooks, .envrc) are bound
// read-only onto themselves, and every directory on the way inside a
// writable root is bound onto itself, which makes it a mount point: it can
// be neither renamed nor removed, so "mv .git .g" followed by a rebuilt
// .git/hooks fails.
//
// # Git
//
// Git runs hooks and programs its config names, on the host, in whatever
// repository it finds; a shell prompt runs git on every cd. So in every git
// directory of the writable roots only what git writes in ordinary work
// stays writable (objects but not objects/info/alternates, refs, logs, the
// index, HEAD and the other *_HEAD, *_MSG, *_MODE state, packed-refs,
// shallow, rebase and sequencer state, lock files, info/refs), and
// everything that configures or redirects git is its control plane:
// config, config.worktree, commondir, gitdir, hooks, info's files,
// remotes, branches, objects/info/alternates and http-alternates, and the
// .git entry itself.
//
//   - When a run starts (gitprotect.go), the control plane of each root's
//     git directory (.git a directory, a "gitdir:" file or a link), its
//     common directory, its worktrees (.git/worktrees/*) and submodules
//     (.git/modules/**) is found without walking the project, with the
//     config files git reads for the root from elsewhere in it
//     (include.path and includeIf.*.path of the repository's and the
//     host's config, every condition), the hooks directories
//     core.hooksPath names there (husky's .husky), the template directory
//     init.templateDir names, and the programs config keys name by a path
//     there (a core.fsmonitor script, an alias or textconv driver in the
//     project). bwrap binds what exists
//     read-only and watches what does not (taken away after the run); a
//     .git or control entry that is a link is put back after the run if
//     changed. Landlock snapshots all of it and puts it back after the
//     run, and moves a root's .git directory back if the command moved it.
//     Submodules' config files are the exception under bwrap: git
//     submodule update rewrites them each time, so they stay writable and
//     the old one is put back when the new one names a program.
//   - After the run (gitsweep_linux.go), both backends look at the other
//     git directories below the roots: nested and vendored repositories,
//     bare ones, ones made, copied, cloned or renamed into place during
//     the run, ones a .git file or link or a commondir leads to. A
//     directory with objects and refs (or a commondir) is judged whole,
//     by what git would read from it now, when it became one during the
//     run: content staged by an earlier run and made reachable by a later
//     one is caught whatever its change times. In one that was a git
//     directory before, what the run made or changed is judged. Judged
//     means: a runnable hook is moved to the quarantine (except one git
//     init copied from the host's template directory), and so is a config
//     naming a program or including another file (gitconf.Runs: read by
//     the host's git, git config --list --null, when it is installed
//     outside the writable directories; by gitconf's own parser of git's
//     syntax otherwise); a config file included from one that stays is
//     judged on its own. Stderr names the file and the keys; the audit
//     record lists what was taken ("protected").
//   - What changed is known without listing what did not when safeexec
//     may use fanotify filesystem marks (run by root): the directories in
//     which something was made, moved in, written or re-moded, and the
//     candidates in and above them, are all that is looked at. Otherwise
//     every directory of the roots is listed, up to 1 048 576 entries and
//     256 levels; where it stops, and any directory it cannot list, is
//     said on stderr and in the audit record ("unchecked").
//   - Nothing enters a root from an unswept place but as new files: bwrap
//     binds each root, the cache and /tmp separately (a rename across is
//     EXDEV), and Landlock gives the roots a right the cache and the
//     private temporary directory lack, so a directory cannot be renamed
//     from there into a root; a file renamed or linked in gets a new
//     change time.
//
// A protected or masked path that does not exist yet gets no mount (it
// would need a placeholder on the host, which host programs would see
// during the run: in git status, as a file where ~/.aws should become a
// directory). Outside the writable roots none is needed: the command cannot
// create the path. Inside one (a new .envrc, .git/hooks in a repository
// without hooks, ~/.ssh when the working directory is $HOME) the command
// can; once every process of the sandbox is gone, whatever is there is
// moved into $XDG_STATE_HOME/safeexec/quarantine/<time>-<random>/<path>
// (~/.local/state/safeexec/…, beside the default audit log; removed
// instead when that is on another file system) and stderr says so, e.g.
// "safeexec: the command created /p/.envrc, a protected path; moved it to
// …". A link the command put on the way to such a path (~/.config pointing
// at a directory with gh/hosts.yml) is moved the same way. The look after
// the run follows no link (bwrap_guard_linux.go). Nothing empties the
// quarantine: what is there is for the user to look at and delete. A run starts no helper
// process besides bwrap, except a small watchdog for the pids cgroup of a
// run by root with a process limit, which removes the cgroup if safeexec
// is killed.
//
// When safeexec runs as root, the command runs as uid 1000 inside a user
// namespace. It is still host root to the kernel's permission checks on
// files it does not own through a mapping, so files only root may read
// (/etc/shadow, ssh host keys, TLS keys, /var/log, debconf's and apt's
// passwords, cloud-init data, ...; rootsecrets.go, shared with the
// Landlock backend, where the command is root without capabilities) are
// masked explicitly, and so is root's home directory when the command's
// $HOME is elsewhere (sudo keeping a user's $HOME) and no writable root
// lies in it; /proc/sys is bound read-only.
//
// Detection reads a few files and starts no process, except under a
// seccomp filter (a container), where only creating a user namespace
// tells whether bwrap can: that probe's success is remembered for the rest
// of the boot in $XDG_RUNTIME_DIR/safeexec (else ~/.cache/safeexec), keyed
// by boot, user, user and mount namespaces and the seccomp state. Only a
// success is kept, and all it does is let bwrap try: if the namespaces are
// refused after all, the run is refused and the entry forgotten.
//
// Signals: bwrap does not forward them and --new-session detaches the
// command from the terminal, so [Process] Signal sends the signal to the
// process group of the sandbox's init, which the command shares; init
// ignores signals it has no handler for. Wait returns once every process
// of the sandbox's pid namespace is gone.
//
// [Limits] are set with prlimit on the sandbox's init while bwrap waits on
// --block-fd, so the whole tree inherits them; RLIMIT_NPROC counts the
// processes of the sandbox's own user namespace.
//
// # Seccomp
//
// The filter checks the architecture (a syscall of any other ABI, such as
// i386 int 0x80 or x32 on x86-64, is refused) and returns EPERM for
// ptrace, process_vm_*, io_uring_*, mount and the new mount API, setns,
// unshare and clone with namespace flags, keyctl/add_key/request_key, bpf,
// perf_event_open, userfaultfd, module and kexec calls, open_by_handle_at,
// ioctl TIOCSTI/TIOCLINUX and socket(AF_VSOCK); clone3 gets ENOSYS so libc
// falls back to clone, whose flags the filter can read. A file mode with
// the set-user-ID or set-group-ID bit is refused (chmod, fchmod,
// fchmodat, fchmodat2, open, openat, creat, mknod, mknodat; openat2 gets
// ENOSYS, its mode being out of the filter's sight): what the command
// creates in a writable root belongs on the host to the user who ran
// safeexec, root included, and a set-user-ID shell left there would give
// that user's rights to whoever runs it later. The Landlock backend adds
// a socket filter: IP sockets only for TCP and UDP (Landlock's network
// rules do not see MPTCP, SCTP or families such as SMC that carry TCP
// themselves), plus AF_UNIX and AF_NETLINK; and a process filter
// (seccomp_process_linux.go): without a pid namespace, prlimit,
// setpriority, ioprio_set, the sched_* setters and page migration act on
// the caller only, POSIX message queues are refused, and below Landlock
// ABI 6 signals to safeexec, its group and -1 are refused.
//
// # Out of the command's reach
//
// safeexec holds what the command must not have: the secrets stripped
// from its environment, the audit log, the protected paths' snapshots.
// [Harden] makes it non-dumpable. Under bwrap it is outside the pid
// namespace. Under Landlock the command is forked from an unconfined
// thread and confines itself before its exec (forkexec_linux.go): no
// thread of safeexec is ever in the command's domain, so Landlock's ptrace
// and signal scoping keep the command away from it, and the process filter
// does the rest. Descriptors: every backend passes the command its three
// standard descriptors and ExtraFiles only (fds_unix.go), and a directory
// as a standard descriptor becomes /dev/null. [Report] Unenforced says,
// per backend, what none of this covers (cannot.go).
//
// # Limits
//
// What this package does not protect against:
//
//   - Kernel bugs. Namespaces, seccomp and Landlock reduce the kernel
//     surface; they do not remove it.
//   - Run by root, root-only files that the list in rootsecrets.go does
//     not name are readable (the command owns them through the uid
//     mapping): add such paths to deny_read.
//   - Reads of anything not masked. In compat mode the whole file system is
//     readable except deny_read and (as root) the root-only list: a secret
//     kept elsewhere (a project's own .env, a key in an unusual place) is
//     readable unless the config names it. Use strict mode to see less.
//   - Host unix sockets outside /run, /var/run, /tmp, /var/tmp and the
//     masked paths stay reachable by path when their permissions allow it
//     (an agent in the home directory such as 1Password's
//     ~/.1password/agent.sock: add its directory to deny_read; bwrap
//     cannot mount over a socket itself).
//   - The tool cache (CacheDir) and temporary directory (TempDir) are
//     shared by every sandboxed run of one project: what one run writes
//     there is what later runs of that project build with. Other projects'
//     (Private) are hidden under bwrap and Landlock; seatbelt and Windows
//     leave them readable, not writable.
//   - Memory is not limited: a command can fill its private /tmp, /var/tmp
//     and /run (tmpfs, in RAM) or allocate until the kernel's OOM killer
//     acts on the host.
//   - Protected paths are found at the places the policy names (under each
//     writable root). A protected name that is itself a symlink protects
//     its target; the link can still be replaced (git's control entries
//     that are links are put back after the run).
//   - Git: only the roots' own git directories, their worktrees and
//     submodules are read-only during the run; a git directory nested
//     deeper, and one made during the run, is writable until the run
//     ends and judged only then, so a host program running git there
//     during the run can run what the command planted. Inside the sandbox
//     commands that write the config of a repository that existed at the
//     start fail (git config, git remote add, git branch -m, git submodule
//     init; git branch --track warns), and so does removing a worktree
//     that existed (git worktree remove). In a nested repository the sweep
//     takes back what can run or redirect object reads (hooks, config,
//     alternates); a changed info/ or pointer file there is judged by
//     where it leads, not taken back. A config file outside a nested
//     repository's git directory that its (unchanged) config includes is
//     judged only when something in that repository changed during the
//     run (always, when the roots are listed). A config the run changed
//     is taken back whole, keys of the user's own included, when it names
//     any program. A run that rewrites a nested repository's rebase todo
//     (exec lines) is not judged: git runs it only on git rebase
//     --continue. With the listing sweep (no fanotify: safeexec not run by
//     root, a kernel or file system without filesystem marks and file
//     handles), the cost grows with the project, and a directory whose
//     change time moved is judged whole: a hook added where the user has
//     hooks of their own takes those too, and so does anything that
//     changes a nested .git directory's own entries when a relative
//     core.hooksPath names a hooks directory in its worktree. A renamed
//     file is new to the sweep only where the file system updates change
//     times on rename (ext4, xfs, btrfs, tmpfs do). In permissive mode the
//     whole file system is writable and staged content can come from
//     anywhere. The sweep does not run after a SIGKILL of safeexec.
//   - A protected or masked path that does not exist when the run starts
//     is not blocked during the run: what the command creates there
//     (inside a writable root) is usable by the command and by host
//     programs until the run ends, and is moved away only then. If
//     safeexec is killed with SIGKILL, it is not moved away at all: check
//     the paths the policy protects (git status shows a new .envrc, ls
//     .git/hooks) before using a directory a killed run wrote to. What a
//     host program, or another run, creates at such a path during the run
//     is moved away the same way (and reported on stderr).
//   - A credential file that a host program creates during the run, at a
//     path that did not exist when the run started, is visible to that run
//     (a new ~/.aws/credentials after "aws configure" in another
//     terminal). The next run masks it.
//   - A protected path that a host program replaces or removes during the
//     run (an editor that saves by renaming a new file over .envrc) loses
//     its read-only mount for the rest of that run.
//   - A writable root may be a single existing file (it is bound on its
//     own, even inside the private /tmp); a root that does not exist is
//     skipped. A writable root of "/" or the host's temporary directory is
//     not bound: the first would undo the sandbox, the second is replaced
//     by the project's temporary directory (or a private one). Callers
//     refuse such roots before they get here (package workspace).
//   - Landlock, seatbelt and Windows cannot put another directory at
//     /tmp: the project's temporary directory is $TMPDIR there, and a
//     program that writes to /tmp by name cannot.
//   - Exit statuses above 128 are read as "killed by signal N", as a shell
//     does: a command that exits 130 on its own is reported as SIGINT.
//   - RLIMIT_CPU is per process, so a command that keeps forking can use
//     more CPU in total; use the pipeline's wall-clock timeout.
//   - The set-ID mode bits cannot be set, on files or directories: a
//     git repository with core.sharedRepository (which marks its
//     directories set-group-ID) cannot create new object directories.
//   - The none backend confines nothing.
//   - Descriptors: inherited ones are marked close-on-exec process-wide
//     when a backend starts (an embedding program that meant to pass one
//     to a child of its own must pass it explicitly). Harden is for good:
//     the process stays non-dumpable.
//   - Windows: reads are not confined at all (a write-restricted token
//     reads what the user reads; the credential paths' deny ACEs stop
//     writes only), sockets are not filtered (the proxy is advisory), and
//     compat mode's %APPDATA% and %LOCALAPPDATA% grants are narrowed by a
//     denylist of places the host runs code from (winpaths.go). Adding and
//     removing an inheritable ACE makes Windows touch every file below the
//     directory, at every run. A helper killed between starting the command
//     (suspended) and putting it in the command's job leaves that process
//     suspended, never run, until the job safeexec put the helper in ends.
package sandbox
