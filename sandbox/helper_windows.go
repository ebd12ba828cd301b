//go:build windows

package sandbox

// The built-in Windows helper: `safeexec __winhelper run …` (the protocol of
// windows_protocol.go). It runs the command with a restricted token in a
// kill-on-close job object:
//
//   - strict and compat: a DISABLE_MAX_PRIVILEGE | LUA_TOKEN |
//     WRITE_RESTRICTED token whose restricting SIDs are the workspace SID
//     (winsid.go), a per-run SID, the logon SID, Everyone and RESTRICTED.
//     A write succeeds only where one of them is granted it: the granted
//     roots (winplan.go: strict the first writable root, compat every root
//     and %APPDATA%, %LOCALAPPDATA%) get an inheritable allow ACE for the
//     workspace SID, the run's temporary directory and the tool cache one
//     for the run SID; the protected paths, the places the host runs code
//     from and the credential paths below them get deny ACEs. Every ACE is
//     journaled before it is applied (winjournal.go) and removed after the
//     run; a journal left by a killed run is undone at the next start.
//   - permissive: DISABLE_MAX_PRIVILEGE | LUA_TOKEN only: writes are not
//     confined and no ACL is changed (labelled weak).
//
// The command starts suspended with CreateProcessAsUser on a desktop of
// the run's own (winproc_windows.go), is put in the job, then resumed.
//
// Limits (Windows): a write-restricted token reads whatever the user can
// read (restricting SIDs are checked for writes only), so credential paths
// are not hidden: their deny ACEs stop writes, not reads; sockets are not
// filtered (the proxy variables are set, a command can ignore them);
// adding and removing an inheritable ACE touches every file under a root
// (slow on big trees). Wine, where this is tested on Linux, does not
// enforce tokens or ACLs.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	modadvapi32               = windows.NewLazySystemDLL("advapi32.dll")
	procCreateRestrictedToken = modadvapi32.NewProc("CreateRestrictedToken")
)

// CreateRestrictedToken flags.
const (
	disableMaxPrivilege = 0x1
	luaToken            = 0x4
	writeRestricted     = 0x8
)

// tokenFlags are the CreateRestrictedToken flags of a mode: permissive
// drops WRITE_RESTRICTED (and so every restricting SID).
func tokenFlags(mode Mode) uint32 {
	if mode == Permissive {
		return disableMaxPrivilege | luaToken
	}
	return disableMaxPrivilege | luaToken | writeRestricted
}

// helperOutputCap bounds what the helper buffers of each output stream
// when it answers with the output (not with --stdio inherit).
const helperOutputCap = 64 << 20

// RunWindowsHelper is the built-in helper (safeexec __winhelper run …):
// args start with "run". It prints the answer (or writes it to the answer
// file) and exits with the command's exit code, 125 when setup failed.
func RunWindowsHelper(args []string) int {
	req, err := parseHelperArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "safeexec: __winhelper: %v\n", err)
		return 125
	}
	// CTRL_BREAK sent to the process group is for the command, which
	// shares the helper's group.
	signal.Ignore(os.Interrupt)
	ans := runHelperRequest(req)
	out := encodeHelperAnswer(ans)
	if req.Inherit {
		if err := os.WriteFile(req.AnswerFile, out, 0o600); err != nil {
			fmt.Fprintf(os.Stderr, "safeexec: __winhelper: write the answer: %v\n", err)
			return 125
		}
	} else if _, err := os.Stdout.Write(out); err != nil {
		return 125
	}
	if ans.Error != "" {
		fmt.Fprintf(os.Stderr, "safeexec: %s\n", ans.Error)
		return 125
	}
	return ans.ExitCode
}

// cappedBuffer keeps the first n bytes written to it and drops the rest.
type cappedBuffer struct {
	bytes.Buffer
	n int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.n - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

func runHelperRequest(req *helperRequest) helperAnswer {
	fail := func(err error) helperAnswer {
		return helperAnswer{ExitCode: 125, Error: "windows helper: " + err.Error()}
	}
	var cur windows.Token
	access := uint32(windows.TOKEN_DUPLICATE | windows.TOKEN_QUERY | windows.TOKEN_ASSIGN_PRIMARY | windows.TOKEN_ADJUST_DEFAULT)
	if err := windows.OpenProcessToken(windows.CurrentProcess(), access, &cur); err != nil {
		return fail(fmt.Errorf("open the process token: %w", err))
	}
	defer cur.Close()
	user, err := cur.GetTokenUser()
	if err != nil {
		return fail(fmt.Errorf("token user: %w", err))
	}
	runID, err := randomHex(8)
	if err != nil {
		return fail(err)
	}
	runSIDStr, err := newRunSIDString()
	if err != nil {
		return fail(fmt.Errorf("run SID: %w", err))
	}
	known := knownFolders()
	var roots []string
	for _, r := range req.Policy.WritableRoots {
		if _, err := os.Stat(r); err == nil {
			roots = append(roots, r)
		}
	}
	if req.Mode != Permissive {
		for _, c := range []string{req.Policy.CacheDir, req.Policy.TempDir} {
			if c == "" {
				continue
			}
			if err := os.MkdirAll(c, 0o700); err != nil {
				return fail(fmt.Errorf("create %s: %w", c, err))
			}
		}
	}
	wsSIDStr := req.Policy.SID
	if wsSIDStr == "" {
		wsSIDStr = workspaceSID(user.User.Sid.String(), req.Mode, winGrantedRoots(req.Mode, roots, known))
	}
	wsSID, err := windows.StringToSid(wsSIDStr)
	if err != nil {
		return fail(fmt.Errorf("workspace SID %q: %w", wsSIDStr, err))
	}
	runSID, err := windows.StringToSid(runSIDStr)
	if err != nil {
		return fail(fmt.Errorf("run SID: %w", err))
	}

	plan := planWindowsACL(&winPlanInput{
		Mode: req.Mode, Roots: roots, TempDir: req.Policy.TempDir, CacheDir: req.Policy.CacheDir,
		DenyWrite: req.Policy.DenyWrite, DenyRead: req.Policy.DenyRead, Known: known,
		WorkspaceSID: wsSIDStr, RunSID: runSIDStr,
		Exists: func(p string) bool { _, err := os.Lstat(p); return err == nil },
	})
	if len(plan) > 0 {
		finish, err := applyPlan(req.Policy.JournalDir, runID, plan)
		if finish != nil {
			defer finish()
		}
		if err != nil {
			return fail(err)
		}
	}

	token, err := restrictedToken(cur, req.Mode, wsSID, runSID)
	if err != nil {
		return fail(err)
	}
	defer token.Close()
	desk, err := newRunDesktop(runID, []*windows.SID{user.User.Sid, logonSID(cur), wsSID, runSID})
	if err != nil {
		return fail(err)
	}
	defer desk.close()
	job, err := newJob(req.Mode, req.Policy.Limits)
	if err != nil {
		return fail(err)
	}
	defer windows.CloseHandle(job) // kill on close: nothing outlives the helper

	path, err := exec.LookPath(req.Argv[0])
	if err != nil {
		msg := fmt.Sprintf("safeexec: %s: command not found\n", req.Argv[0])
		if req.Inherit {
			fmt.Fprint(os.Stderr, msg)
			return helperAnswer{ExitCode: 127}
		}
		return helperAnswer{ExitCode: 127, Stderr: msg}
	}
	spec := startSpec{
		token: token, app: path, argv: req.Argv, dir: req.Cwd, desktop: desk.name,
		// Explicitly the helper's (already filtered) environment: with a
		// token and no environment, Windows would build the user's default
		// one from the registry, secrets included.
		env:   os.Environ(),
		stdio: [3]windows.Handle{stdHandle(os.Stdin), stdHandle(os.Stdout), stdHandle(os.Stderr)},
	}
	var stdout, stderr cappedBuffer
	var drained sync.WaitGroup
	var writeEnds []*os.File
	defer func() {
		for _, w := range writeEnds {
			w.Close()
		}
	}()
	if !req.Inherit {
		stdout.n, stderr.n = helperOutputCap, helperOutputCap
		for i, buf := range []*cappedBuffer{&stdout, &stderr} {
			r, w, err := os.Pipe()
			if err != nil {
				return fail(err)
			}
			writeEnds = append(writeEnds, w)
			spec.stdio[i+1] = windows.Handle(w.Fd())
			drained.Add(1)
			go func() {
				defer drained.Done()
				defer r.Close()
				io.Copy(buf, r)
			}()
		}
	}
	pi, err := startSuspended(spec)
	if err != nil {
		return fail(fmt.Errorf("start %s: %w", req.Argv[0], err))
	}
	defer windows.CloseHandle(pi.Process)
	defer windows.CloseHandle(pi.Thread)
	if err := windows.AssignProcessToJobObject(job, pi.Process); err != nil {
		windows.TerminateProcess(pi.Process, 1)
		return fail(fmt.Errorf("put the command in the job: %w", err))
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		windows.TerminateJobObject(job, 1)
		return fail(fmt.Errorf("resume the command: %w", err))
	}
	// Only the command holds the write ends of the output pipes now.
	for _, w := range writeEnds {
		w.Close()
	}
	writeEnds = nil

	wait := uint32(windows.INFINITE)
	if req.Policy.TimeoutMS > 0 {
		wait = uint32(min(req.Policy.TimeoutMS, 0xFFFFFFFE))
	}
	timedOut := false
	if ev, _ := windows.WaitForSingleObject(pi.Process, wait); ev == uint32(windows.WAIT_TIMEOUT) {
		timedOut = true
		windows.TerminateJobObject(job, 1)
		windows.WaitForSingleObject(pi.Process, windows.INFINITE)
	}
	// What the command left behind goes with it.
	windows.TerminateJobObject(job, 1)
	var code uint32
	windows.GetExitCodeProcess(pi.Process, &code)
	drained.Wait()
	ans := helperAnswer{ExitCode: int(code), TimedOut: timedOut}
	if timedOut {
		ans.ExitCode = 124
	}
	if !req.Inherit {
		ans.Stdout, ans.Stderr = stdout.String(), stderr.String()
	}
	return ans
}

// applyPlan journals and applies a run's ACEs under the journal lock,
// after undoing what runs that were killed left behind. The returned
// function (returned with an error too, to undo what was applied) undoes
// them and removes the journal.
func applyPlan(dir, runID string, plan []aclChange) (finish func(), err error) {
	if dir == "" {
		if dir, err = winJournalDir(); err != nil {
			return nil, err
		}
	}
	unlock, err := lockJournals(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	recoverJournals(dir, "", journalAlive, undoACE)
	j, err := createJournal(dir, selfHeader(runID))
	if err != nil {
		return nil, err
	}
	finish = func() {
		unlock, err := lockJournals(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "safeexec: %v; the ACL changes of this run are undone at the next start\n", err)
			return
		}
		defer unlock()
		for _, e := range finishJournal(dir, j, journalAlive, undoACE) {
			fmt.Fprintf(os.Stderr, "safeexec: undo an ACL change: %v; retried at the next start\n", e)
		}
	}
	for _, c := range plan {
		if err := j.record(c); err != nil {
			return finish, err
		}
		if err := applyACE(c); err != nil {
			what := "grant writes on"
			if c.Op != "allow" {
				what = "protect"
			}
			return finish, fmt.Errorf("%s %s: %w", what, c.Path, err)
		}
	}
	return finish, nil
}

// knownFolders are the user's folders that the modes' table and the
// host-run list name.
func knownFolders() map[string]string {
	out := map[string]string{}
	for name, id := range map[string]*windows.KNOWNFOLDERID{
		"profile": windows.FOLDERID_Profile, "appdata": windows.FOLDERID_RoamingAppData,
		"localappdata": windows.FOLDERID_LocalAppData, "documents": windows.FOLDERID_Documents,
	} {
		if p, err := windows.KnownFolderPath(id, windows.KF_FLAG_DEFAULT); err == nil && p != "" {
			out[name] = p
		}
	}
	return out
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// restrictedToken derives the command's primary token from the helper's
// (cur): every privilege but change-notify removed, a LUA token
// (Administrators deny-only, as under UAC), and in strict and compat mode
// WRITE_RESTRICTED, with the restricting SIDs checked on every write: the
// workspace SID (the granted roots), the run SID (its temporary directory
// and the tool cache), the logon SID (the window station and desktop),
// Everyone (the NUL device and other objects open to anyone) and
// RESTRICTED (objects that admit restricted code on purpose).
func restrictedToken(cur windows.Token, mode Mode, ws, run *windows.SID) (windows.Token, error) {
	var disable, restrict []windows.SIDAndAttributes
	if admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid); err == nil {
		disable = append(disable, windows.SIDAndAttributes{Sid: admins})
	}
	flags := uintptr(tokenFlags(mode))
	if mode != Permissive {
		restrict = append(restrict, windows.SIDAndAttributes{Sid: ws}, windows.SIDAndAttributes{Sid: run})
		for _, k := range []windows.WELL_KNOWN_SID_TYPE{windows.WinWorldSid, windows.WinRestrictedCodeSid} {
			s, err := windows.CreateWellKnownSid(k)
			if err != nil {
				return 0, fmt.Errorf("well-known SID %d: %w", k, err)
			}
			restrict = append(restrict, windows.SIDAndAttributes{Sid: s})
		}
		if logon := logonSID(cur); logon != nil {
			restrict = append(restrict, windows.SIDAndAttributes{Sid: logon})
		}
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	for _, s := range append(append([]windows.SIDAndAttributes(nil), disable...), restrict...) {
		pin.Pin(s.Sid)
	}
	first := func(s []windows.SIDAndAttributes) uintptr {
		if len(s) == 0 {
			return 0
		}
		pin.Pin(&s[0])
		return uintptr(unsafe.Pointer(&s[0]))
	}
	var tok windows.Token
	r, _, e := procCreateRestrictedToken.Call(uintptr(cur), flags,
		uintptr(len(disable)), first(disable),
		0, 0,
		uintptr(len(restrict)), first(restrict),
		uintptr(unsafe.Pointer(&tok)))
	if r == 0 {
		return 0, fmt.Errorf("create the restricted token: %w", e)
	}
	if mode != Permissive {
		if err := setDefaultDACL(tok, cur, ws, run); err != nil {
			tok.Close()
			return 0, err
		}
	}
	return tok, nil
}

// logonSID returns the token's logon SID (the one that reaches the
// window station and the console), or nil.
func logonSID(t windows.Token) *windows.SID {
	groups, err := t.GetTokenGroups()
	if err != nil {
		return nil
	}
	for _, g := range groups.AllGroups() {
		if g.Attributes&windows.SE_GROUP_LOGON_ID == windows.SE_GROUP_LOGON_ID {
			s, err := g.Sid.Copy()
			if err == nil {
				return s
			}
		}
	}
	return nil
}

// setDefaultDACL lets objects the command creates (its own threads, its
// pipes) be written by its write-restricted token: the default DACL grants
// the user, SYSTEM and the run's SIDs.
func setDefaultDACL(tok, cur windows.Token, sids ...*windows.SID) error {
	user, err := cur.GetTokenUser()
	if err != nil {
		return fmt.Errorf("token user: %w", err)
	}
	system, err := windows.CreateWellKnownSid(windows.WinLocalSystemSid)
	if err != nil {
		return err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var entries []windows.EXPLICIT_ACCESS
	for _, s := range append([]*windows.SID{user.User.Sid, system}, sids...) {
		pin.Pin(s)
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.GRANT_ACCESS,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_UNKNOWN,
				TrusteeValue: windows.TrusteeValueFromSID(s),
			},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return fmt.Errorf("default DACL: %w", err)
	}
	dd := struct{ DefaultDacl *windows.ACL }{acl}
	if err := windows.SetTokenInformation(tok, windows.TokenDefaultDacl, (*byte)(unsafe.Pointer(&dd)), uint32(unsafe.Sizeof(dd))); err != nil {
		return fmt.Errorf("set the default DACL: %w", err)
	}
	return nil
}

// newJob makes the kill-on-close job with the policy's limits; strict and
// compat also take away the clipboard, desktops and global atoms.
func newJob(mode Mode, l helperLimits) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	if l.Processes > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		info.BasicLimitInformation.ActiveProcessLimit = uint32(min(l.Processes, 1<<31))
	}
	if l.CPUSeconds > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_TIME
		info.BasicLimitInformation.PerJobUserTimeLimit = int64(min(l.CPUSeconds, 1<<32)) * 10_000_000
	}
	if l.MemoryMB > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(min(l.MemoryMB, 1<<40) << 20)
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set job limits: %w", err)
	}
	if mode != Permissive {
		ui := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: windows.JOB_OBJECT_UILIMIT_DESKTOP |
			windows.JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | windows.JOB_OBJECT_UILIMIT_EXITWINDOWS |
			windows.JOB_OBJECT_UILIMIT_GLOBALATOMS | windows.JOB_OBJECT_UILIMIT_HANDLES |
			windows.JOB_OBJECT_UILIMIT_READCLIPBOARD | windows.JOB_OBJECT_UILIMIT_WRITECLIPBOARD |
			windows.JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS}
		// Best effort: a console has no desktop to protect, and Wine
		// does not implement it.
		windows.SetInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
			uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui)))
	}
	return job, nil
}

// startInJob puts the suspended process pid into job, then resumes its
// threads: it cannot start a child before it is in the job.
func startInJob(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("put process %d in the job: %w", pid, err)
	}
	return resumeProcess(pid)
}

// resumeProcess resumes every thread of a process started suspended.
func resumeProcess(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}
