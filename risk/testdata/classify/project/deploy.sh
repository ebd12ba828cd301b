#!/usr/bin/env bash
set -euo pipefail
sudo systemctl restart app
