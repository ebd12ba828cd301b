package netallow

import (
	"net"
	"strconv"
	"strings"
)

// proxyVars are the variables ProxyEnv sets, and the ones WithProxyEnv
// removes (in any letter case) before setting its own.
var proxyVars = []string{
	"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy",
	"npm_config_proxy", "npm_config_https_proxy", "npm_config_noproxy",
	"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY", "CARGO_HTTP_PROXY",
}

// NoProxy is the no_proxy value set inside the sandbox: the sandbox's own
// loopback (its own servers), never the host's.
const NoProxy = "localhost,127.0.0.1"

// ProxyEnv returns the environment variables ("NAME=value") that point
// common tools at a proxy listening on 127.0.0.1: both cases of
// http_proxy, https_proxy and no_proxy, ALL_PROXY/all_proxy as
// socks5h:// (so names resolve at the proxy, not locally), npm, yarn, pip
// and cargo settings, and git's http.proxy through GIT_CONFIG_COUNT (so a
// proxy in the user's gitconfig cannot take precedence). socksPort 0 leaves
// out ALL_PROXY. Appending the result to an environment that already sets
// GIT_CONFIG_COUNT would replace that; use WithProxyEnv there.
func ProxyEnv(httpPort, socksPort int) []string {
	return proxyEnv(httpPort, socksPort, 0)
}

func proxyEnv(httpPort, socksPort, gitIndex int) []string {
	h := "http://127.0.0.1:" + strconv.Itoa(httpPort)
	env := []string{
		"http_proxy=" + h, "HTTP_PROXY=" + h,
		"https_proxy=" + h, "HTTPS_PROXY=" + h,
		"no_proxy=" + NoProxy, "NO_PROXY=" + NoProxy,
		"npm_config_proxy=" + h, "npm_config_https_proxy=" + h, "npm_config_noproxy=" + NoProxy,
		"YARN_HTTP_PROXY=" + h, "YARN_HTTPS_PROXY=" + h,
		"PIP_PROXY=" + h,
		"CARGO_HTTP_PROXY=" + h,
	}
	if socksPort != 0 {
		s := "socks5h://127.0.0.1:" + strconv.Itoa(socksPort)
		env = append(env, "ALL_PROXY="+s, "all_proxy="+s)
	}
	i := strconv.Itoa(gitIndex)
	env = append(env,
		"GIT_CONFIG_COUNT="+strconv.Itoa(gitIndex+1),
		"GIT_CONFIG_KEY_"+i+"=http.proxy",
		"GIT_CONFIG_VALUE_"+i+"="+h,
	)
	return env
}

// WithProxyEnv returns env with every proxy variable it had (in any letter
// case) replaced by ProxyEnv's, keeping git configuration passed through
// GIT_CONFIG_COUNT and adding http.proxy after it.
func WithProxyEnv(env []string, httpPort, socksPort int) []string {
	out := make([]string, 0, len(env)+20)
	gitCount := 0
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if isProxyVar(name) {
			continue
		}
		if name == "GIT_CONFIG_COUNT" {
			if n, err := strconv.Atoi(value); err == nil && n > 0 && n < 1000 {
				gitCount = n
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, proxyEnv(httpPort, socksPort, gitCount)...)
}

func isProxyVar(name string) bool {
	for _, v := range proxyVars {
		if strings.EqualFold(name, v) {
			return true
		}
	}
	return false
}

// BridgeArgs returns the arguments that follow "__bridge" in the argv that
// starts the in-sandbox bridge: `safeexec __bridge <BridgeArgs...> -- CMD
// ARGS...`. The socket paths must be the same inside the sandbox as
// outside (bind the socket directory at its own path). socksSock may be
// "" for no SOCKS listener.
func BridgeArgs(httpSock, socksSock string, forwards ...Forward) []string {
	args := []string{"--http", httpSock}
	if socksSock != "" {
		args = append(args, "--socks", socksSock)
	}
	for _, f := range forwards {
		args = append(args, "--forward", f.String())
	}
	return args
}

// BridgeProtocol is the version of the arguments safeexec gives a separate
// safeexec-bridge binary, which passes "--protocol" BridgeProtocol first:
// a bridge from another build refuses them with a message saying so,
// rather than misreading them.
const BridgeProtocol = "1"

// TTYArg, added to the bridge's arguments, asks it to make its standard
// input (a terminal safeexec made for the run) the controlling terminal of
// the command. With TTYArg and no sockets the bridge is only that
// terminal's supervisor: `safeexec __bridge --tty -- CMD ARGS...`.
const TTYArg = "--tty"

// bridgeConfig is what RunBridge reads from its arguments.
type bridgeConfig struct {
	httpSock, socksSock string
	// tty: standard input is a terminal to make the controlling terminal
	// (the supervisor may then run without any socket).
	tty bool
	// forwards are loopback ports served inside, each a CONNECT to the
	// host's same port through the proxy.
	forwards []Forward
	argv     []string
}

// parseBridgeArgs reads BridgeArgs' output followed by "--" and the command.
func parseBridgeArgs(args []string) (bridgeConfig, error) {
	var c bridgeConfig
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--":
			c.argv = args[i+1:]
			if len(c.argv) == 0 {
				return c, errBridgeUsage("no command after --")
			}
			if c.httpSock == "" && (c.socksSock != "" || !c.tty) {
				return c, errBridgeUsage("--http is required")
			}
			return c, nil
		case "--tty":
			c.tty = true
		case "--protocol":
			if i+1 >= len(args) || args[i+1] != BridgeProtocol {
				return c, errBridgeUsage("this bridge speaks protocol " + BridgeProtocol +
					"; install safeexec and safeexec-bridge from the same build")
			}
			i++
		case "--forward":
			if i+1 >= len(args) {
				return c, errBridgeUsage("--forward needs host:port")
			}
			i++
			host, port, err := net.SplitHostPort(args[i])
			n, perr := strconv.Atoi(port)
			if err != nil || perr != nil || n < 1 || n > 65535 || host == "" {
				return c, errBridgeUsage("--forward " + strconv.Quote(args[i]) + ": want host:port")
			}
			c.forwards = append(c.forwards, Forward{Host: host, Port: n})
		case "--http", "--socks":
			if i+1 >= len(args) || args[i+1] == "" {
				return c, errBridgeUsage(a + " needs a socket path")
			}
			i++
			if a == "--http" {
				c.httpSock = args[i]
			} else {
				c.socksSock = args[i]
			}
		default:
			return c, errBridgeUsage("unknown argument " + strconv.Quote(a))
		}
	}
	return c, errBridgeUsage("missing -- before the command")
}

type errBridgeUsage string

func (e errBridgeUsage) Error() string { return "bridge arguments: " + string(e) }
