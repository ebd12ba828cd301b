#!/bin/sh
# Whole-process overhead of safeexec over bare bwrap, in interleaved rounds
# (median of per-round ratios). Extra arguments go to the harness, e.g.
#   bench/overhead.sh -n 500 -flags "--mode strict --no-network"
#   bench/overhead.sh -user nobody -flags ""     # non-root, network on
#   bench/overhead.sh -rss 20                    # safeexec's own peak RSS
#   bench/overhead.sh -serve                     # safeexec serve, per command
#   bench/overhead.sh -serve -gap 40ms           # the same with a client's think time between commands
#   bench/overhead.sh -work -n 30                # go test / npm test: bare against safeexec
set -e
cd "$(dirname "$0")/.."
exec go run ./bench/overhead "$@"
