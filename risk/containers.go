package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Containers that reach into the host.

var containerJudges = map[string]judgeFunc{
	"docker": container, "podman": container, "nerdctl": container, "finch": container, "ctr": container,
	"lima": container, "colima": container,
}

// container flags container runs that reach into the host.
func container(j *judge, c *shell.Command) {
	args := c.Args
	sub := ""
	si := 0
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i].Value, "-") {
			sub, si = args[i].Value, i
			break
		}
	}
	if sub == "compose" || sub == "container" {
		for i := si + 1; i < len(args); i++ {
			if !strings.HasPrefix(args[i].Value, "-") {
				sub, si = args[i].Value, i
				break
			}
		}
	}
	if !slices.Contains([]string{"run", "create", "exec"}, sub) {
		return
	}
	for i := si + 1; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if !strings.HasPrefix(v, "-") {
			if sub != "exec" {
				break // the image: what follows is the container's command
			}
			continue
		}
		name, val, hasVal := strings.Cut(v, "=")
		value := func() shell.Word {
			if hasVal {
				return shell.Static(val)
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return shell.Word{}
		}
		switch name {
		case "--privileged":
			j.hit(c, ruleContainerEscape, "a privileged container controls the host")
		case "--pid", "--ipc", "--uts", "--userns", "--cgroupns", "--net", "--network":
			if w := value(); w.Value == "host" {
				j.hit(c, ruleContainerEscape, "the container shares the host's %s namespace", strings.TrimPrefix(name, "--"))
			}
		case "--cap-add", "--device", "--security-opt":
			w := value()
			if name != "--security-opt" || strings.Contains(w.Value, "unconfined") || strings.Contains(w.Value, "disable") {
				j.hit(c, ruleContainerEscape, "%s %s weakens the container's isolation", name, w.Value)
			}
		case "-v", "--volume", "--mount", "--rootfs":
			w := value()
			src := w.Value
			if name == "--mount" {
				for _, kv := range strings.Split(src, ",") {
					if k, v, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
						src = v
					}
				}
			} else {
				src, _, _ = strings.Cut(src, ":")
			}
			if w.Dynamic {
				j.hit(c, ruleDynamicTarget, "mounts %s into a container, a path only known at run time", w.Value)
				continue
			}
			if !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "~") && !strings.HasPrefix(src, ".") {
				continue // a named volume
			}
			if p, ok := j.env.resolve(c, shell.Static(src)); ok {
				if strings.HasSuffix(p, "docker.sock") {
					j.hit(c, ruleContainerEscape, "mounting the Docker socket gives the container control of the host")
					continue
				}
				if kind, what := j.env.writeKind(p); kind != pathFine {
					j.hit(c, ruleContainerEscape, "mounts %s into a container, which can then change it", what)
				}
			}
		}
	}
}
