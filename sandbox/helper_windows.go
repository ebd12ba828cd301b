//go:build windows

package sandbox

// The built-in Windows helper: `safeexec __winhelper run …` (the protocol of
// windows_protocol.go). It runs the command with a restricted token in a
// kill-on-close job object:
//
//   - strict and compat: a WRITE_RESTRICTED token whose restricting SIDs are
//     a fresh per-run SID, Everyone (the NUL device, consoles, pipes), the
//     RESTRICTED SID and the logon SID. A write succeeds only where one of
//     them is granted it: the writable roots get an inheritable allow ACE
//     for the per-run SID for the duration of the run, and the protected
//     paths that exist get a deny ACE; both are removed afterwards. Strict
//     keeps only the first root. Every privilege is removed and
//     Administrators is deny-only.
//   - permissive: privileges removed, no restricting SIDs (writes are not
//     confined; labelled weak).
//
// Limits (Windows): a write-restricted token reads whatever the user can
// read, so credential paths are not hidden; sockets are not filtered (the
// proxy variables are set, a command can ignore them); adding and removing
// an inheritable ACE touches every file under a root (slow on big trees);
// if the helper is killed its ACEs stay behind, naming a SID no later run
// uses. Wine, where this is tested, does not enforce tokens or ACLs.

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
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
	writeRestricted     = 0x8
)

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
	var sid *windows.SID
	var err error
	if req.Policy.SID != "" {
		sid, err = windows.StringToSid(req.Policy.SID)
	} else {
		sid, err = newRunSID()
	}
	if err != nil {
		return fail(fmt.Errorf("run SID: %w", err))
	}

	var undo []func()
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	if req.Mode != Permissive {
		roots := req.Policy.WritableRoots
		if req.Mode == Strict && len(roots) > 1 {
			roots = roots[:1]
		}
		for _, c := range []string{req.Policy.CacheDir, req.Policy.TempDir} {
			if c == "" {
				continue
			}
			if err := os.MkdirAll(c, 0o700); err != nil {
				return fail(fmt.Errorf("create %s: %w", c, err))
			}
			u, err := addACE(c, sid, windows.GRANT_ACCESS, modifyRights)
			if err != nil {
				return fail(fmt.Errorf("grant writes on %s: %w", c, err))
			}
			undo = append(undo, u)
		}
		for _, r := range roots {
			u, err := addACE(r, sid, windows.GRANT_ACCESS, modifyRights)
			if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
				continue
			}
			if err != nil {
				return fail(fmt.Errorf("grant writes on %s: %w", r, err))
			}
			undo = append(undo, u)
			for _, rel := range protectedRels(r, req.Policy.DenyWrite) {
				p := filepath.Join(r, filepath.FromSlash(rel))
				if _, err := os.Lstat(p); err != nil {
					continue // the run's guard puts back what gets created
				}
				u, err := addACE(p, sid, windows.DENY_ACCESS, protectRights)
				if err != nil {
					return fail(fmt.Errorf("protect %s: %w", p, err))
				}
				undo = append(undo, u)
			}
		}
	}
	token, err := restrictedToken(req.Mode, sid)
	if err != nil {
		return fail(err)
	}
	defer token.Close()
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
	cmd := &exec.Cmd{
		Path: path,
		Args: req.Argv,
		// Explicitly the helper's (already filtered) environment: with a
		// token and no Env, Windows would build the user's default
		// environment from the registry, secrets included.
		Env:   os.Environ(),
		Dir:   req.Cwd,
		Stdin: os.Stdin,
		SysProcAttr: &syscall.SysProcAttr{
			Token:         syscall.Token(token),
			CreationFlags: windows.CREATE_SUSPENDED,
		},
	}
	var stdout, stderr cappedBuffer
	if req.Inherit {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	} else {
		stdout.n, stderr.n = helperOutputCap, helperOutputCap
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
	}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("start %s: %w", req.Argv[0], err))
	}
	if err := startInJob(job, cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return fail(err)
	}

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout <-chan time.Time
	if req.Policy.TimeoutMS > 0 {
		t := time.NewTimer(time.Duration(req.Policy.TimeoutMS) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	timedOut := false
	select {
	case <-done:
	case <-timeout:
		timedOut = true
		windows.TerminateJobObject(job, 1)
		<-done
	}
	// What the command left behind goes with it.
	windows.TerminateJobObject(job, 1)
	ans := helperAnswer{ExitCode: cmd.ProcessState.ExitCode(), TimedOut: timedOut}
	if timedOut {
		ans.ExitCode = 124
	}
	if !req.Inherit {
		ans.Stdout, ans.Stderr = stdout.String(), stderr.String()
	}
	return ans
}

// Access rights for the writable roots (read, write, execute, delete:
// "Modify") and those denied on protected paths.
const (
	modifyRights  = windows.FILE_GENERIC_READ | windows.FILE_GENERIC_WRITE | windows.FILE_GENERIC_EXECUTE | windows.DELETE | fileDeleteChild
	protectRights = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.FILE_WRITE_EA | windows.FILE_WRITE_ATTRIBUTES |
		windows.DELETE | fileDeleteChild | windows.WRITE_DAC | windows.WRITE_OWNER
	fileDeleteChild = 0x40
)

// newRunSID makes a SID nobody else holds: S-1-15-3 followed by four
// random sub-authorities (the capability namespace; in a restricted token
// any SID may restrict).
func newRunSID() (*windows.SID, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	s := fmt.Sprintf("S-1-15-3-%d-%d-%d-%d",
		binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]),
		binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:]))
	return windows.StringToSid(s)
}

// addACE adds an inheritable ACE for sid on path and returns the function
// that puts the previous DACL back.
func addACE(path string, sid *windows.SID, mode windows.ACCESS_MODE, rights windows.ACCESS_MASK) (func(), error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, err
	}
	old, _, err := sd.DACL()
	if err != nil {
		return nil, err
	}
	ctl, _, err := sd.Control()
	if err != nil {
		return nil, err
	}
	info := windows.SECURITY_INFORMATION(windows.DACL_SECURITY_INFORMATION)
	if ctl&windows.SE_DACL_PROTECTED != 0 {
		info |= windows.PROTECTED_DACL_SECURITY_INFORMATION
	} else {
		info |= windows.UNPROTECTED_DACL_SECURITY_INFORMATION
	}
	var pin runtime.Pinner
	pin.Pin(sid)
	defer pin.Unpin()
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: rights,
		AccessMode:        mode,
		Inheritance:       windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_UNKNOWN,
			TrusteeValue: windows.TrusteeValueFromSID(sid),
		},
	}}, old)
	if err != nil {
		return nil, err
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, info, nil, nil, acl, nil); err != nil {
		return nil, err
	}
	return func() {
		windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, info, nil, nil, old, nil)
		runtime.KeepAlive(sd)
	}, nil
}

// restrictedToken derives the command's primary token from the helper's.
func restrictedToken(mode Mode, sid *windows.SID) (windows.Token, error) {
	var cur windows.Token
	access := uint32(windows.TOKEN_DUPLICATE | windows.TOKEN_QUERY | windows.TOKEN_ASSIGN_PRIMARY | windows.TOKEN_ADJUST_DEFAULT)
	if err := windows.OpenProcessToken(windows.CurrentProcess(), access, &cur); err != nil {
		return 0, fmt.Errorf("open the process token: %w", err)
	}
	defer cur.Close()

	var disable, restrict []windows.SIDAndAttributes
	if admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid); err == nil {
		disable = append(disable, windows.SIDAndAttributes{Sid: admins})
	}
	flags := uintptr(disableMaxPrivilege)
	if mode != Permissive {
		flags |= writeRestricted
		restrict = append(restrict, windows.SIDAndAttributes{Sid: sid})
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
		return 0, fmt.Errorf("CreateRestrictedToken: %w", e)
	}
	if mode != Permissive {
		if err := setDefaultDACL(tok, cur, sid); err != nil {
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
// the user, SYSTEM and the run's SID.
func setDefaultDACL(tok, cur windows.Token, sid *windows.SID) error {
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
	for _, s := range []*windows.SID{user.User.Sid, system, sid} {
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
