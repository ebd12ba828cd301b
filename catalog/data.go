package catalog

// Programs known to treat their arguments as data: names, patterns,
// packages, text. Nothing more is known about them, but knowing that
// much keeps their arguments from being judged as a command (which sudo,
// apt-get install sudo, pkill -f make, journalctl -u ssh). A program that
// the catalog does not know at all is presumed to run its arguments.

var data = &Tool{}

var dataTools = names(data, []string{
	// Lookups and manuals.
	"which", "whereis", "whatis", "apropos", "info", "tldr", "cheat", "groups", // getent, id, whoami …: accounts.go
	"w", "last", "lastlog", "hostname", "uname", "nproc", "lsb_release",
	"dpkg-query", "update-alternatives", "alternatives", "locale", "localectl", "timedatectl", "hostnamectl",
	// Processes and the system's state.
	"ps", "pgrep", "pkill", "pidof", "killall", "top", "htop", "btop", "atop", "uptime", "free", "vmstat", "iostat",
	"mpstat", "pstree", "lsof", "fuser", "journalctl", "systemd-analyze", "systemd-cgls", "loginctl", "dmesg",
	"lsblk", "blkid", "lscpu", "lsusb", "lspci", "lsmod", "df", "du", "stat", "file", "ls", "tree", "ss",
	"netstat", "ifconfig", "route", "ping", "ping6", "traceroute", "tracepath", "mtr", "arp", "iw", "nmcli",
	"whois", "sensors", "date", "cal", "sleep", "seq", "yes", "expr", "bc", "dc", "factor", "numfmt", "tty", "stty",
	"tput", "clear", "reset", "env-update", "ldd", "nm", "objdump", "readelf", "size", "strings",
	"sha1sum", "sha256sum", "sha512sum", "md5sum", "b2sum", "cksum", "sum", "shasum",
	// Text.
	"cat", "tac", "head", "tail", "more", "most", "wc", "cut", "paste", "join", "comm", "diff", "cmp",
	"colordiff", "delta", "column", "fold", "fmt", "nl", "od", "hexdump", "pr", "expand", "unexpand",
	"jq", "gojq", "jaq", "fx", "xmllint", "csvlook", "bat", "glow", "figlet", "cowsay", "lolcat",
	"dos2unix", "unix2dos", "basename", "dirname", "realpath", "readlink", "mktemp", "pathchk",
	"shuf", "tsort", "look", "spell", "aspell", "wdiff", "fd", "fdfind", "locate", "mlocate", "plocate",
	// Package managers: their arguments are package names.
	"apt", "apt-get", "apt-cache", "apt-file", "aptitude", "dpkg", "rpm", "yum", "dnf", "microdnf", "zypper",
	"pacman", "yay", "paru", "apk", "emerge", "xbps-install", "brew", "port", "choco", "winget", "scoop", "pkg",
	"snap", "nix-env", "guix", "opkg", "pkgin", "flatpak",
})

// names is a table of programs that share one Tool.
func names(t *Tool, list []string) map[string]*Tool {
	m := make(map[string]*Tool, len(list))
	for _, n := range list {
		m[n] = t
	}
	return m
}
