package sandbox

import "path"

// rootSecrets are paths only root may read. When safeexec runs as root,
// a file's mode does not keep them from the command: under bwrap the
// command's uid is mapped onto root, their owner; under Landlock the
// command is root itself, without capabilities but still the owner. Both
// backends mask them instead (a missing one is skipped). The list names
// what a Linux host commonly keeps there: password hashes, host and TLS
// keys, network and VPN secrets, package-manager and cloud-init
// credentials, cluster admin configs, logs.
var rootSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/security/opasswd",
	"/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh", // host private keys
	"/etc/ssl/private", "/etc/pki/tls/private", "/etc/pki/CA/private",
	"/etc/NetworkManager/system-connections",
	"/etc/wpa_supplicant", "/etc/wireguard", "/etc/openvpn",
	"/etc/ipsec.secrets", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
	"/etc/krb5.keytab",
	"/etc/letsencrypt",
	"/etc/libvirt/secrets",
	"/etc/apt/auth.conf", "/etc/apt/auth.conf.d", // repository passwords
	"/etc/mysql/debian.cnf",
	"/etc/credstore", "/etc/credstore.encrypted", "/var/lib/systemd/credential.secret",
	"/etc/kubernetes", "/etc/rancher", "/var/lib/rancher",
	"/etc/gitlab", "/etc/gitlab-runner",
	"/var/cache/debconf/passwords.dat", "/var/cache/private",
	"/var/lib/cloud", "/var/lib/waagent", // cloud-init user data
	"/var/lib/samba/private",
	"/var/backups",
	"/var/lib/lxd", "/var/snap/lxd", "/var/lib/incus", // their sockets give root
	"/var/lib/docker", "/var/lib/containerd", "/var/lib/kubelet",
	"/var/lib/private", "/var/lib/sss", "/var/lib/tailscale",
	"/var/lib/NetworkManager", "/var/lib/sudo",
	"/var/log",
	"/var/spool/cron",
	"/var/mail", "/var/spool/mail",
	"/boot",
}

// rootHome is root's home directory.
const rootHome = "/root"

// rootSecretsFor returns the root-only paths to mask for a command run by
// root whose $HOME is home: rootSecrets, and root's own home directory too
// when the command's home is elsewhere (sudo keeping a user's $HOME) and
// none of dirs (the working directory, the writable roots, the cache)
// lies in it. With $HOME=/root the deny_read list covers its credentials.
func rootSecretsFor(home string, dirs ...string) []string {
	home = path.Clean(home)
	if home == "." || pathWithin(rootHome, home) {
		return rootSecrets
	}
	for _, d := range dirs {
		if d != "" && pathWithin(rootHome, path.Clean(d)) {
			return rootSecrets
		}
	}
	return append(append([]string(nil), rootSecrets...), rootHome)
}
