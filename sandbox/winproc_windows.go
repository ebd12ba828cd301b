//go:build windows

package sandbox

// Starting the command with the restricted token: CreateProcessAsUser with
// an explicit desktop (os/exec cannot name one), only the three standard
// handles inherited, the environment given explicitly, suspended until it
// is in the job.
//
// The desktop: a process whose token is restricted can start, but its own
// children then fail to initialise (user32 cannot open the desktop they
// inherit by default, STATUS_DLL_INIT_FAILED) unless the desktop it runs
// on admits the token's restricting SIDs. The helper creates a desktop of
// the run's own, whose DACL grants the user, the logon SID and the run's
// SIDs, and starts the command on it by name; children inherit it. It
// also keeps the command away from the windows of the user's desktop (no
// messages, hooks or simulated input into them). Where no desktop can be
// created (a service session without a window station of its own) the
// command gets the helper's current desktop, named explicitly.

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	moduser32                     = windows.NewLazySystemDLL("user32.dll")
	procCreateDesktopW            = moduser32.NewProc("CreateDesktopW")
	procCloseDesktop              = moduser32.NewProc("CloseDesktop")
	procGetProcessWindowStation   = moduser32.NewProc("GetProcessWindowStation")
	procGetThreadDesktop          = moduser32.NewProc("GetThreadDesktop")
	procGetUserObjectInformationW = moduser32.NewProc("GetUserObjectInformationW")
)

const uoiName = 2 // UOI_NAME

// runDesktop is the desktop the command starts on.
type runDesktop struct {
	name    string // window station\desktop, as STARTUPINFO wants it
	h       uintptr
	private bool
}

func (d *runDesktop) close() {
	if d != nil && d.h != 0 {
		procCloseDesktop.Call(d.h)
		d.h = 0
	}
}

// userObjectName is the name of a window station or desktop handle.
func userObjectName(h uintptr) string {
	var buf [256]uint16
	var need uint32
	r, _, _ := procGetUserObjectInformationW.Call(h, uoiName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)*2), uintptr(unsafe.Pointer(&need)))
	if r == 0 {
		return ""
	}
	return windows.UTF16ToString(buf[:])
}

// newRunDesktop creates the run's desktop, granting the given SIDs; when
// that fails it falls back to the current desktop, by name.
func newRunDesktop(run string, sids []*windows.SID) (*runDesktop, error) {
	ws, _, _ := procGetProcessWindowStation.Call()
	wsName := userObjectName(ws)
	if wsName == "" {
		wsName = "WinSta0"
	}
	name := "safeexec-" + run
	if sd, err := desktopSD(sids); err == nil {
		sa := windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
		p, _ := windows.UTF16PtrFromString(name)
		h, _, _ := procCreateDesktopW.Call(uintptr(unsafe.Pointer(p)), 0, 0, 0, windows.GENERIC_ALL, uintptr(unsafe.Pointer(&sa)))
		if h != 0 {
			return &runDesktop{name: wsName + `\` + name, h: h, private: true}, nil
		}
	}
	d, _, _ := procGetThreadDesktop.Call(uintptr(windows.GetCurrentThreadId()))
	cur := userObjectName(d)
	if cur == "" {
		cur = "Default"
	}
	return &runDesktop{name: wsName + `\` + cur}, nil
}

// desktopSD is a security descriptor whose DACL gives the SIDs full
// access.
func desktopSD(sids []*windows.SID) (*windows.SECURITY_DESCRIPTOR, error) {
	var entries []windows.EXPLICIT_ACCESS
	for _, s := range sids {
		if s == nil {
			continue
		}
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
		return nil, err
	}
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		return nil, err
	}
	if err := sd.SetDACL(acl, true, false); err != nil {
		return nil, err
	}
	return sd, nil
}

// startSpec is one process to start with CreateProcessAsUser.
type startSpec struct {
	token   windows.Token
	app     string   // the resolved program
	argv    []string // as the program should see it
	dir     string
	env     []string
	desktop string
	// stdio are the handles the command gets (0: none); they are
	// duplicated as inheritable for the new process only.
	stdio [3]windows.Handle
}

// startSuspended starts s suspended; the caller puts it in a job and
// resumes its thread.
func startSuspended(s startSpec) (*windows.ProcessInformation, error) {
	if err := checkBatchArgs(s.app, s.argv[1:]); err != nil {
		return nil, err
	}
	app, err := windows.UTF16PtrFromString(s.app)
	if err != nil {
		return nil, err
	}
	cmdline, err := windows.UTF16PtrFromString(composeCommandLine(s.argv))
	if err != nil {
		return nil, err
	}
	dir, err := windows.UTF16PtrFromString(s.dir)
	if err != nil {
		return nil, err
	}
	desk, err := windows.UTF16PtrFromString(s.desktop)
	if err != nil {
		return nil, err
	}
	env, err := envBlock(s.env)
	if err != nil {
		return nil, err
	}
	cur := windows.CurrentProcess()
	var dups [3]windows.Handle
	var inherit []windows.Handle
	defer func() {
		for _, h := range inherit {
			windows.CloseHandle(h)
		}
	}()
	for i, h := range s.stdio {
		if h == 0 || h == windows.InvalidHandle {
			continue
		}
		var d windows.Handle
		if err := windows.DuplicateHandle(cur, h, cur, &d, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
			return nil, fmt.Errorf("duplicate standard handle %d: %w", i, err)
		}
		dups[i] = d
		inherit = append(inherit, d)
	}
	si := windows.StartupInfoEx{}
	si.Cb = uint32(unsafe.Sizeof(si))
	si.Desktop = desk
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = dups[0], dups[1], dups[2]
	flags := uint32(windows.CREATE_SUSPENDED | windows.CREATE_UNICODE_ENVIRONMENT | windows.EXTENDED_STARTUPINFO_PRESENT)
	if len(inherit) > 0 {
		al, err := windows.NewProcThreadAttributeList(1)
		if err != nil {
			return nil, fmt.Errorf("attribute list: %w", err)
		}
		defer al.Delete()
		if err := al.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&inherit[0]), uintptr(len(inherit))*unsafe.Sizeof(inherit[0])); err != nil {
			return nil, fmt.Errorf("handle list: %w", err)
		}
		si.ProcThreadAttributeList = al.List()
	}
	var pi windows.ProcessInformation
	if err := windows.CreateProcessAsUser(s.token, app, cmdline, nil, nil, len(inherit) > 0, flags, &env[0], dir, &si.StartupInfo, &pi); err != nil {
		return nil, err
	}
	return &pi, nil
}

// envBlock is env as CreateProcess wants it: UTF-16 "k=v" strings, sorted
// by name regardless of case, each ended by a NUL, and a final NUL.
func envBlock(env []string) ([]uint16, error) {
	sorted := append([]string(nil), env...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return strings.ToUpper(envName(sorted[i])) < strings.ToUpper(envName(sorted[j]))
	})
	var b []uint16
	for _, kv := range sorted {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("environment entry with a NUL byte")
		}
		if !strings.Contains(kv[min(1, len(kv)):], "=") {
			continue
		}
		b = append(b, utf16.Encode([]rune(kv))...)
		b = append(b, 0)
	}
	if len(b) == 0 {
		b = append(b, 0)
	}
	return append(b, 0), nil
}

// envName is the name of a "k=v" entry; Windows keeps entries such as
// "=C:=C:\dir", whose name starts with '='.
func envName(kv string) string {
	if i := strings.IndexByte(kv[min(1, len(kv)):], '='); i >= 0 {
		return kv[:i+1]
	}
	return kv
}

// stdHandle is one of the helper's own standard handles, or 0.
func stdHandle(f *os.File) windows.Handle {
	if f == nil {
		return 0
	}
	return windows.Handle(f.Fd())
}
