package catalog

import (
	"slices"

	"github.com/safeexec/safeexec/shell"
)

// Containers: docker and its kin copy files out of containers, save
// images to files, and write their registry credentials on login.

// dockerGlobals are the options of docker (podman, nerdctl) before the
// subcommand.
var dockerGlobals = &shell.ArgSpec{Short: "cHlr", Long: []string{"config", "context", "host", "log-level", "tlscacert", "tlscert",
	"tlskey", "connection", "identity", "url", "root", "runroot", "storage-driver", "storage-opt", "cgroup-manager",
	"namespace", "address", "snapshotter", "cni-path", "data-root", "module"}, InOrder: true}

// DockerRun returns the options of docker run, create and exec.
func DockerRun() *shell.ArgSpec { return dockerRun }

// dockerRun are the options of docker run, create and exec (and of
// podman's and nerdctl's): the ones that take a value, so that a value
// is never read as an option or as the image. Options end at the image
// (or the container, for exec).
var dockerRun = &shell.ArgSpec{Short: "acehlmpuvw", Long: []string{"attach", "add-host", "annotation", "blkio-weight",
	"blkio-weight-device", "cap-add", "cap-drop", "cgroup-parent", "cgroupns", "cidfile", "cpu-period", "cpu-quota",
	"cpu-rt-period", "cpu-rt-runtime", "cpu-shares", "cpus", "cpuset-cpus", "cpuset-mems", "device", "device-cgroup-rule",
	"device-read-bps", "device-read-iops", "device-write-bps", "device-write-iops", "dns", "dns-option", "dns-opt",
	"dns-search", "domainname", "entrypoint", "env", "env-file", "expose", "gpus", "group-add", "health-cmd",
	"health-interval", "health-retries", "health-start-period", "health-start-interval", "health-timeout", "hostname",
	"ip", "ip6", "ipc", "isolation", "kernel-memory", "label", "label-file", "link", "link-local-ip", "log-driver",
	"log-opt", "mac-address", "memory", "memory-reservation", "memory-swap", "memory-swappiness", "mount", "name",
	"network", "net", "network-alias", "net-alias", "oom-score-adj", "pid", "pids-limit", "platform", "publish", "pull",
	"restart", "runtime", "security-opt", "shm-size", "stop-signal", "stop-timeout", "storage-opt", "sysctl", "tmpfs",
	"ulimit", "user", "userns", "uts", "volume", "volume-driver", "volumes-from", "workdir", "detach-keys", "arch",
	"os", "variant", "cgroups", "cgroup-conf", "chrootdirs", "conmon-pidfile", "env-merge", "gidmap", "uidmap",
	"subuidname", "subgidname", "hosts-file", "image-volume", "init-path", "log-opt", "passwd-entry", "personality",
	"pod", "pod-id-file", "preserve-fds", "requires", "sdnotify", "seccomp-policy", "secret", "timeout", "tz", "umask",
	"unsetenv", "userns-uid-map", "userns-gid-map", "decryption-key", "cap", "snapshotter", "runtime-config-path",
	"cni-network", "with-ns", "rootfs-propagation", "health-on-failure", "group-entry", "label-file", "retry", "retry-delay"},
	InOrder: true}

// composeGlobals are docker compose's options before its subcommand.
var composeGlobals = &shell.ArgSpec{Short: "fp", Long: []string{"file", "project-name", "profile", "env-file",
	"project-directory", "ansi", "progress", "parallel"}, InOrder: true}

// ContainerRun finds a container command's run, create or exec: the
// subcommand ("" for none of them) and its arguments, from the
// subcommand on (docker container run, docker compose run, podman
// run, ctr run).
func ContainerRun(c *shell.Command) (string, []shell.Word) {
	args := c.Args
	i := operandAt(dockerGlobals, args)
	if i < 0 {
		return "", nil
	}
	sub := args[i].Value
	switch sub {
	case "container":
		rest := args[i:]
		k := operandAt(dockerGlobals, rest)
		if k < 0 {
			return "", nil
		}
		i, sub = i+k, rest[k].Value
	case "compose":
		rest := args[i:]
		k := operandAt(composeGlobals, rest)
		if k < 0 {
			return "", nil
		}
		i, sub = i+k, rest[k].Value
	}
	if args[i].Dynamic || !slices.Contains([]string{"run", "create", "exec"}, sub) {
		return "", nil
	}
	return sub, args[i:]
}

// operandAt is the index of the first operand in args[1:], or -1.
func operandAt(spec *shell.ArgSpec, args []shell.Word) int {
	for a := range spec.Args(args) {
		if a.Operand {
			return a.At
		}
	}
	return -1
}

var containerTools = map[string]*Tool{
	"docker":  {Tool: shell.Tool{Args: dockerGlobals, Writes: containerWrites}, HomeWrites: dockerHome},
	"podman":  {Tool: shell.Tool{Args: dockerGlobals, Writes: containerWrites}, HomeWrites: dockerHome},
	"nerdctl": {Tool: shell.Tool{Args: dockerGlobals}, HomeWrites: dockerHome},
	"finch":   {Tool: shell.Tool{Args: dockerGlobals}},
	"ctr":     {Tool: shell.Tool{Args: dockerGlobals}},
	"kubectl": {Tool: shell.Tool{Args: kubeArgs, Writes: containerWrites}, HomeWrites: kubeHome},
	"oc":      {Tool: shell.Tool{Args: kubeArgs}, HomeWrites: kubeHome},
	"helm":    {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "n", Long: []string{"kube-context", "namespace", "kubeconfig", "registry-config", "repository-config", "repository-cache", "kube-apiserver", "kube-as-user", "kube-token"}}}, HomeWrites: dockerHome},
}

// containerWrites: docker cp SRC DEST writes a local DEST; docker save
// and export -o FILE write the file.
func containerWrites(c *shell.Command) shell.Writes {
	args := c.Args
	var w shell.Writes
	if len(args) > 3 && args[1].Value == "cp" {
		if ops := anyArgs.Operands(args[1:]); len(ops) >= 2 && !Remote(ops[len(ops)-1]) {
			w.Files = ops[len(ops)-1:]
		}
	}
	if c.Name() == "docker" && hasWord(args, "save", "export") {
		w.Files = append(w.Files, outputOption(c).Files...)
	}
	return w
}

func dockerHome(c *shell.Command) []string {
	w := SubWords(c, 2)
	if len(w) > 0 && slices.Contains([]string{"login", "logout"}, w[0]) || c.Name() == "helm" && len(w) > 1 && w[0] == "registry" && slices.Contains([]string{"login", "logout"}, w[1]) {
		return []string{".docker/config.json"}
	}
	return nil
}

func kubeHome(c *shell.Command) []string {
	w := SubWords(c, 2)
	if len(w) > 1 && w[0] == "config" && slices.Contains([]string{"set", "set-context", "set-cluster", "set-credentials", "use-context", "use", "delete-context", "delete-cluster", "delete-user", "rename-context", "unset"}, w[1]) && !anyArgs.Has(c.Args, "", "kubeconfig") {
		return []string{".kube/config"}
	}
	return nil
}
