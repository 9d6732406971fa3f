#!/usr/bin/env bash
# Installs the Debian packages the test suite uses, when they are missing:
# git (real repositories), bubblewrap (the read-only sandbox), postgresql and
# sqlite3 (read-only database tests). Needs root (or sudo) and apt-get; on a
# machine without apt-get it says what to install and carries on.
set -euo pipefail
need=()
command -v git >/dev/null || need+=(git)
command -v bwrap >/dev/null || need+=(bubblewrap)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
  echo "ensure-test-deps: please install: ${need[*]} (tests that need them will fail)" >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "ensure-test-deps: installing ${need[*]}" >&2
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
