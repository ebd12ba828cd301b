#!/bin/sh
# Whole-process overhead of safeexec over bare bwrap. Extra arguments go to
# the harness, e.g. bench/overhead.sh -n 500 -flags "--mode strict --no-network".
set -e
cd "$(dirname "$0")/.."
exec go run ./bench/overhead "$@"
