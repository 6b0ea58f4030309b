#!/bin/bash
# alert-rules.sh - docs/alerts.yml is valid (promtool check rules) and its unit tests with
# synthetic series pass (promtool test rules alerts_test.yml). Exit 77 (skip) without promtool
# (Debian package prometheus, installed by scripts/deps).
set -euo pipefail
cd "$(dirname "$0")"
command -v promtool >/dev/null || { echo "skip: promtool is not installed"; exit 77; }
promtool check rules ../../docs/alerts.yml
promtool test rules alerts_test.yml
