//go:build linux && !amd64 && !arm64

package prelaunch

// sysGetcpu is unknown here: nothing is pinned.
const sysGetcpu = -1
