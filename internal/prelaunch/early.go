package prelaunch

// EarlySpec says which plain run is starting, as cmd/safeexec's early
// package found it on the command line: File names its remembered launch
// (FileName), Tail is its command as given (argv, or the script and its
// arguments), Environ the process's environment.
type EarlySpec struct {
	File    string
	Tail    []string
	Environ []string
}
