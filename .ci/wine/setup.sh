#!/bin/sh
# Prepare this Debian machine to run GOOS=windows Go tests under Wine (plumbing only: Wine does not
# enforce ACLs or restricted tokens). Idempotent. Usage: .ci/wine/setup.sh
# Afterwards: GOOS=windows GOARCH=amd64 go test ./sandbox/...   (go finds go_windows_amd64_exec on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export WINEPREFIX="${WINEPREFIX:-/tmp/wineprefix}" WINEDEBUG="${WINEDEBUG:--all}"
if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || [ ! -x /usr/lib/wine/wine64 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 wine gcc-mingw-w64-x86-64-win32 >/dev/null
fi
[ -d "$WINEPREFIX/drive_c/windows/system32" ] || /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ]; then
  # Go >= 1.22 Windows binaries need ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks.
  x86_64-w64-mingw32-gcc -O2 -shared -o /tmp/bcryptprimitives.dll "$here/bcryptprimitives.c"
  cp /tmp/bcryptprimitives.dll "$dll"
fi
install -m755 "$here/go_windows_amd64_exec" /usr/local/bin/go_windows_amd64_exec
# Start Wine's server and services now, persistent and detached from any
# output: otherwise the first test binary starts them, they inherit go
# test's output pipe, and go test waits for it ("Test I/O incomplete").
/usr/lib/wine/wineserver -p </dev/null >/dev/null 2>&1 || true
/usr/lib/wine/wine64 cmd /c exit </dev/null >/dev/null 2>&1 || true
echo "wine ready: GOOS=windows GOARCH=amd64 go test ./..."
