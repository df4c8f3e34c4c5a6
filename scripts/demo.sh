#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build and install Accelera, run the main demo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$ROOT/scripts/install-deps.sh"
install_package
accelera demo "$@"
