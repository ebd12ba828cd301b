package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// Registration points for the backends. Each backend file sets its own
// variable from an init function on the platforms where it is built, so the
// files of this package never need to edit each other:
//
//	bwrap_linux.go:     bwrapDetect
//	landlock_linux.go:  landlockDetect
//	seatbelt_darwin.go: seatbeltDetect
//	windows*.go:        windowsDetect
//
// A detect function must be cheap (it runs before every command: read files,
// look up binaries, no process start unless nothing cheaper can decide) and
// return:
//   - the Backend, ready for Start, and a nil error when it can run here;
//   - otherwise a nil Backend and an error wrapping ErrUnavailable whose
//     message says what to install or enable.
//
// In both cases the Report names the backend, its version when known, why it
// was or was not usable, and one Check per thing looked at (with a Fix when
// the check failed). Detect adds the fallback explanation itself.
//
// Shared pieces for other backends in this package (Linux only, in
// seccomp_linux.go):
//
//	seccompProgram() ([]unix.SockFilter, error) // the filter bwrap gets with --seccomp, the Landlock child installs
var (
	bwrapDetect    func() (Backend, Report, error)
	landlockDetect func() (Backend, Report, error)
	seatbeltDetect func() (Backend, Report, error)
	windowsDetect  func() (Backend, Report, error)
)

// Backends lists the names Detect accepts.
var Backends = []string{"auto", "bwrap", "landlock", "seatbelt", "windows", "none"}

// Detect picks the backend named by want ("auto", "bwrap", "landlock",
// "seatbelt", "windows" or "none") and reports why.
//
// "auto" chooses the platform's backend: bwrap on Linux, falling back to
// Landlock when bwrap is missing or cannot create namespaces (the Report's
// Reason and Checks say so: a fallback is never silent); seatbelt on macOS;
// the built-in helper on Windows. It never falls back to "none". When
// nothing can run, the error wraps ErrUnavailable and says what to install
// or enable; the Report still holds every check made, for doctor.
//
// "none" runs commands unconfined and is only returned when asked for by
// name.
func Detect(want string) (Backend, Report, error) {
	switch want {
	case "none":
		return None(), Report{
			Backend: "none",
			Reason:  "chosen explicitly: the command runs unconfined, with the user's full rights",
			Weak:    true,
			Checks: []Check{{
				Name: "confinement", OK: false,
				Detail: "no sandbox: writes, reads and network are not restricted",
				Fix:    "drop --sandbox none to use the platform's sandbox",
			}},
		}, nil
	case "bwrap":
		return detectOne("bwrap", bwrapDetect)
	case "landlock":
		return detectOne("landlock", landlockDetect)
	case "seatbelt":
		return detectOne("seatbelt", seatbeltDetect)
	case "windows":
		return detectOne("windows", windowsDetect)
	case "auto", "":
		return detectAuto(runtime.GOOS)
	}
	return nil, Report{Backend: want, Reason: "unknown backend"},
		fmt.Errorf("sandbox: unknown backend %q (want one of %s)", want, strings.Join(Backends, ", "))
}

func detectOne(name string, fn func() (Backend, Report, error)) (Backend, Report, error) {
	if fn == nil {
		err := fmt.Errorf("sandbox %s: not supported on %s/%s: %w", name, runtime.GOOS, runtime.GOARCH, ErrUnavailable)
		return nil, Report{Backend: name, Reason: err.Error(), Checks: []Check{{
			Name: name, OK: false, Detail: "not built for this platform",
			Fix: "choose --sandbox auto",
		}}}, err
	}
	b, r, err := fn()
	if r.Backend == "" {
		r.Backend = name
	}
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			err = fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if r.Reason == "" {
			r.Reason = err.Error()
		}
		return nil, r, err
	}
	if b == nil {
		err := fmt.Errorf("sandbox %s: detect returned no backend: %w", name, ErrUnavailable)
		r.Reason = err.Error()
		return nil, r, err
	}
	return b, r, nil
}

func detectAuto(goos string) (Backend, Report, error) {
	switch goos {
	case "darwin":
		return detectOne("seatbelt", seatbeltDetect)
	case "windows":
		return detectOne("windows", windowsDetect)
	case "linux":
	default:
		err := fmt.Errorf("sandbox: no backend for %s: %w", goos, ErrUnavailable)
		return nil, Report{Backend: "none", Reason: err.Error()}, err
	}
	b, r, err := detectOne("bwrap", bwrapDetect)
	if err == nil {
		return b, r, nil
	}
	bwrapErr, bwrapReport := err, r
	if landlockDetect == nil {
		return nil, bwrapReport, bwrapErr
	}
	lb, lr, lerr := detectOne("landlock", landlockDetect)
	checks := append(append([]Check(nil), bwrapReport.Checks...), lr.Checks...)
	if lerr != nil {
		err := fmt.Errorf("%w; fallback failed too: %w", bwrapErr, lerr)
		return nil, Report{
			Backend: "none",
			Reason:  err.Error(),
			Checks:  checks,
		}, err
	}
	lr.Checks = append(checks, Check{
		Name:   "fallback",
		OK:     false,
		Detail: "bwrap is unavailable (" + bwrapErr.Error() + "); using landlock instead",
		Fix:    firstFix(bwrapReport.Checks),
	})
	lr.Reason = "fallback to landlock: bwrap unavailable (" + bwrapErr.Error() + ")" + reasonSuffix(lr.Reason)
	return lb, lr, nil
}

func reasonSuffix(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

func firstFix(cs []Check) string {
	for _, c := range cs {
		if !c.OK && c.Fix != "" {
			return c.Fix
		}
	}
	return ""
}

// deepChecks add what only running a backend can tell (its version, whether
// a real sandbox starts) to a Report. Backend files register theirs from
// init, keyed by backend name; each must be safe to call at any time.
var deepChecks = map[string]func(Backend, *Report){}

// Doctor is Detect followed by the checks that cost a process start or
// more: for `safeexec doctor`, never on the way to running a command.
func Doctor(want string) (Backend, Report, error) {
	b, r, err := Detect(want)
	if err != nil {
		return b, r, err
	}
	if f := deepChecks[b.Name()]; f != nil {
		f(b, &r)
	}
	return b, r, nil
}

// Assess completes a Report with what the mode means: permissive (and
// the none backend) protect little, and say so; Unenforced lists what
// the backend cannot enforce in that mode on this machine.
func Assess(r Report, m Mode) Report {
	if m == "" {
		m = Compat
	}
	r.Unenforced = cannotEnforce(r.Backend, m, runningAsRoot(), hostLandlockABI())
	switch {
	case r.Backend == "none":
		r.Weak = true
	case m == Permissive:
		r.Weak = true
		r.Checks = append(r.Checks, Check{
			Name: "mode", OK: false,
			Detail: "permissive: the file system is writable outside the writable roots; only the deny lists, the namespaces and the seccomp filter remain",
			Fix:    "use --mode compat (the default) or strict",
		})
	default:
		r.Checks = append(r.Checks, Check{Name: "mode", OK: true, Detail: string(m)})
	}
	return r
}
