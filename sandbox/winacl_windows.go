//go:build windows

package sandbox

// ACL changes of the Windows helper: adding an ACE for one of safeexec's
// SIDs (idempotently: an ACE that is already there is not added again, so
// nothing is propagated twice), removing every explicit ACE of such a SID,
// the journal's lock and the liveness of the run that wrote a journal.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	procInitializeAcl = modadvapi32.NewProc("InitializeAcl")
	procAddAce        = modadvapi32.NewProc("AddAce")
)

const aclRevisionDS = 4 // ACL_REVISION_DS: any ACE type may follow

// testJournalDir, when set by a test, replaces the journal directory.
var testJournalDir string

// winJournalDir is the directory of the ACL journals:
// %LOCALAPPDATA%\safeexec\acl-journal, found through the known folder
// (not the environment, which the caller may have changed).
func winJournalDir() (string, error) {
	if testJournalDir != "" {
		return testJournalDir, nil
	}
	base, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, windows.KF_FLAG_DEFAULT)
	if err != nil {
		return "", fmt.Errorf("find %%LOCALAPPDATA%%: %w", err)
	}
	return filepath.Join(base, "safeexec", "acl-journal"), nil
}

// lockJournals takes the journal directory's lock: applying a run's ACEs
// and undoing them (its own or a dead run's) happen under it, so one run
// never removes an ACE another is about to rely on.
func lockJournals(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("acl journal: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("acl journal lock: %w", err)
	}
	var ol windows.Overlapped
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("acl journal lock: %w", err)
	}
	return func() {
		var ol windows.Overlapped
		windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
		f.Close()
	}, nil
}

// processCreated is a process's creation time (FILETIME ticks), 0 when
// it cannot be read.
func processCreated(h windows.Handle) uint64 {
	var c, e, k, u windows.Filetime
	if err := windows.GetProcessTimes(h, &c, &e, &k, &u); err != nil {
		return 0
	}
	return uint64(c.HighDateTime)<<32 | uint64(c.LowDateTime)
}

// selfHeader is the journal header of the calling process.
func selfHeader(run string) journalHeader {
	return journalHeader{Run: run, PID: os.Getpid(), Created: processCreated(windows.CurrentProcess())}
}

// journalAlive reports whether the process that wrote a journal still
// runs: same pid, same creation time, not exited. A process that cannot
// be opened for another reason than its absence counts as alive (its
// ACEs stay until a later start can tell).
func journalAlive(h journalHeader) bool {
	if h.PID == os.Getpid() {
		return true
	}
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(h.PID))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(p)
	var code uint32
	if err := windows.GetExitCodeProcess(p, &code); err == nil && code != 259 { // STILL_ACTIVE
		return false
	}
	if h.Created != 0 {
		if c := processCreated(p); c != 0 && c != h.Created {
			return false // the pid was reused
		}
	}
	return true
}

// RecoverWindowsACL undoes the ACL changes of runs that were killed before
// they could undo them themselves (their journals are left in the
// journal directory and their helper is gone). safeexec calls it when it
// starts. It reports on w what it did and what it could not do.
func RecoverWindowsACL(w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	dir, err := winJournalDir()
	if err != nil {
		return
	}
	files, err := journalFiles(dir)
	if err != nil || len(files) == 0 {
		return // the common case: nothing to do, one directory read
	}
	unlock, err := lockJournals(dir)
	if err != nil {
		fmt.Fprintf(w, "safeexec: %v\n", err)
		return
	}
	defer unlock()
	recovered, errs := recoverJournals(dir, "", journalAlive, undoACE)
	if len(recovered) > 0 {
		fmt.Fprintf(w, "safeexec: undid the ACL changes of %d interrupted run(s)\n", len(recovered))
	}
	for _, e := range errs {
		fmt.Fprintf(w, "safeexec: could not undo an ACL change of an interrupted run: %v — it is retried at the next start\n", e)
	}
}

// applyACE adds c's ACE unless an equal or wider one is already there.
func applyACE(c aclChange) error {
	sid, err := windows.StringToSid(c.SID)
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(c.Path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	typ := byte(windows.ACCESS_ALLOWED_ACE_TYPE)
	mode := windows.ACCESS_MODE(windows.GRANT_ACCESS)
	inherit := uint32(windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT)
	switch c.Op {
	case "deny":
		typ, mode = windows.ACCESS_DENIED_ACE_TYPE, windows.DENY_ACCESS
	case "pin":
		typ, mode, inherit = windows.ACCESS_DENIED_ACE_TYPE, windows.DENY_ACCESS, windows.NO_INHERITANCE
	}
	if hasACE(dacl, sid, typ, windows.ACCESS_MASK(c.Mask), inherit != windows.NO_INHERITANCE) {
		runtime.KeepAlive(sd)
		return nil
	}
	info, err := daclInfo(sd)
	if err != nil {
		return err
	}
	var pin runtime.Pinner
	pin.Pin(sid)
	defer pin.Unpin()
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.ACCESS_MASK(c.Mask),
		AccessMode:        mode,
		Inheritance:       inherit,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_UNKNOWN,
			TrusteeValue: windows.TrusteeValueFromSID(sid),
		},
	}}, dacl)
	if err != nil {
		return err
	}
	err = windows.SetNamedSecurityInfo(c.Path, windows.SE_FILE_OBJECT, info, nil, nil, acl, nil)
	runtime.KeepAlive(sd)
	return err
}

// undoACE removes every explicit ACE for c's SID from c's path; a path
// that is gone has nothing to undo.
func undoACE(c aclChange) error {
	if !ownSID(c.SID) {
		return fmt.Errorf("refusing to remove ACEs of %s", c.SID)
	}
	sid, err := windows.StringToSid(c.SID)
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(c.Path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
		return nil
	}
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(sd)
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return err
	}
	kept, removed, err := aclWithout(dacl, sid)
	if err != nil || !removed {
		return err
	}
	info, err := daclInfo(sd)
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(c.Path, windows.SE_FILE_OBJECT, info, nil, nil, kept, nil)
}

// daclInfo is the SECURITY_INFORMATION that sets a DACL and keeps its
// protection from inheritance as it is.
func daclInfo(sd *windows.SECURITY_DESCRIPTOR) (windows.SECURITY_INFORMATION, error) {
	ctl, _, err := sd.Control()
	if err != nil {
		return 0, err
	}
	info := windows.SECURITY_INFORMATION(windows.DACL_SECURITY_INFORMATION)
	if ctl&windows.SE_DACL_PROTECTED != 0 {
		info |= windows.PROTECTED_DACL_SECURITY_INFORMATION
	} else {
		info |= windows.UNPROTECTED_DACL_SECURITY_INFORMATION
	}
	return info, nil
}

// aceSID is the SID of an allowed or denied ACE.
func aceSID(ace *windows.ACCESS_ALLOWED_ACE) *windows.SID {
	return (*windows.SID)(unsafe.Pointer(&ace.SidStart))
}

// hasACE reports whether dacl has an explicit ACE of type typ for sid
// covering mask (and inherited by files and directories, when inheritable).
func hasACE(dacl *windows.ACL, sid *windows.SID, typ byte, mask windows.ACCESS_MASK, inheritable bool) bool {
	if dacl == nil {
		return false
	}
	const inherit = windows.OBJECT_INHERIT_ACE | windows.CONTAINER_INHERIT_ACE
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if windows.GetAce(dacl, i, &ace) != nil {
			return false
		}
		h := ace.Header
		if h.AceType != typ || h.AceFlags&windows.INHERITED_ACE != 0 || inheritable && h.AceFlags&inherit != inherit {
			continue
		}
		if ace.Mask&mask == mask && aceSID(ace).Equals(sid) {
			return true
		}
	}
	return false
}

// aclWithout copies dacl without the explicit allowed and denied ACEs of
// sid. It reports whether any was left out.
func aclWithout(dacl *windows.ACL, sid *windows.SID) (*windows.ACL, bool, error) {
	type entry struct {
		ace  *windows.ACCESS_ALLOWED_ACE
		size uint32
	}
	var keep []entry
	size := uint32(8) // sizeof(ACL)
	removed := false
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil, false, fmt.Errorf("read ACE %d: %w", i, err)
		}
		h := ace.Header
		explicit := h.AceFlags&windows.INHERITED_ACE == 0
		if explicit && (h.AceType == windows.ACCESS_ALLOWED_ACE_TYPE || h.AceType == windows.ACCESS_DENIED_ACE_TYPE) && aceSID(ace).Equals(sid) {
			removed = true
			continue
		}
		keep = append(keep, entry{ace, uint32(h.AceSize)})
		size += uint32(h.AceSize)
	}
	if !removed {
		return dacl, false, nil
	}
	buf := make([]byte, (size+3)&^3)
	acl := (*windows.ACL)(unsafe.Pointer(&buf[0]))
	if r, _, e := procInitializeAcl.Call(uintptr(unsafe.Pointer(acl)), uintptr(len(buf)), aclRevisionDS); r == 0 {
		return nil, false, fmt.Errorf("InitializeAcl: %w", e)
	}
	for _, k := range keep {
		if r, _, e := procAddAce.Call(uintptr(unsafe.Pointer(acl)), aclRevisionDS, 0xFFFFFFFF,
			uintptr(unsafe.Pointer(k.ace)), uintptr(k.size)); r == 0 {
			return nil, false, fmt.Errorf("AddAce: %w", e)
		}
	}
	return acl, true, nil
}

// explicitACEs lists the explicit ACEs of sid on path as "allow" and
// "deny" with their masks; tests use it to see what a run left behind.
func explicitACEs(path string, sid *windows.SID) ([]string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(sd)
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return nil, err
	}
	var out []string
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil, err
		}
		if ace.Header.AceFlags&windows.INHERITED_ACE != 0 || !aceSID(ace).Equals(sid) {
			continue
		}
		switch ace.Header.AceType {
		case windows.ACCESS_ALLOWED_ACE_TYPE:
			out = append(out, fmt.Sprintf("allow %#x", ace.Mask))
		case windows.ACCESS_DENIED_ACE_TYPE:
			out = append(out, fmt.Sprintf("deny %#x", ace.Mask))
		}
	}
	return out, nil
}
