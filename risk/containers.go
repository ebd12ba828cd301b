package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// Containers that reach into the host.

var containerJudges = map[string]judgeFunc{
	"docker": container, "podman": container, "nerdctl": container, "finch": container, "ctr": container,
	"lima": container, "colima": container,
}

// container flags container runs that reach into the host.
func container(j *judge, c *shell.Command) {
	sub, rest := catalog.ContainerRun(c)
	if sub == "" {
		return
	}
	spec := catalog.DockerRun()
	j.hitDynamicOption(c, spec, rest, false, "reach into the host (--privileged, -v /:/host)")
	rootfs := false
	for a := range spec.Args(rest) {
		if a.Operand {
			if rootfs && sub != "exec" {
				// podman --rootfs PATH: the image is a directory of the host.
				j.containerMount(c, "--rootfs", a.Value)
			}
			break // the image (or container): what follows is its command
		}
		name := a.Name
		on := !a.HasValue || !slices.Contains([]string{"false", "0"}, strings.ToLower(a.Value.Value))
		switch name {
		case "privileged":
			if on {
				j.hit(c, ruleContainerEscape, "a privileged container controls the host")
			}
		case "rootfs":
			rootfs = on
		case "pid", "ipc", "uts", "userns", "cgroupns", "net", "network":
			if a.Value.Dynamic {
				j.hit(c, ruleContainerEscape, "--%s %s may share a namespace of the host", name, a.Value.Value)
			} else if a.Value.Value == "host" {
				j.hit(c, ruleContainerEscape, "the container shares the host's %s namespace", name)
			}
		case "cap-add", "device", "security-opt", "cap":
			w := a.Value
			if name != "security-opt" || w.Dynamic || strings.Contains(w.Value, "unconfined") || strings.Contains(w.Value, "disable") {
				j.hit(c, ruleContainerEscape, "--%s %s weakens the container's isolation", name, w.Value)
			}
		case "v", "volume", "mount":
			j.containerMount(c, name, a.Value)
		}
	}
}

// containerMount judges a host path a container gets: a bind mount's
// source (-v SRC:DST, --mount type=bind,src=SRC).
func (j *judge) containerMount(c *shell.Command, name string, w shell.Word) {
	src := w.Value
	if name == "mount" {
		for _, kv := range strings.Split(src, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
				src = v
			}
		}
	} else if name != "--rootfs" {
		src, _, _ = strings.Cut(src, ":")
	}
	if w.Dynamic {
		j.hit(c, ruleDynamicTarget, "mounts %s into a container, a path only known at run time", w.Value)
		return
	}
	if !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "~") && !strings.HasPrefix(src, ".") {
		return // a named volume
	}
	if p, ok := j.env.resolve(c, shell.Static(src)); ok {
		if strings.HasSuffix(p, "docker.sock") {
			j.hit(c, ruleContainerEscape, "mounting the Docker socket gives the container control of the host")
			return
		}
		if kind, what := j.env.writeKind(p); kind != pathFine {
			j.hit(c, ruleContainerEscape, "mounts %s into a container, which can then change it", what)
		}
	}
}
