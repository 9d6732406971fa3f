#!/usr/bin/env bash
# Installs the Debian packages the test suite uses, when they are missing:
# git (real repositories), bubblewrap (the read-only sandbox), postgresql (a
# real server for the read-only database tests, run through runuser from
# util-linux when the tests run as root, with its dblink and adminpack
# extensions), python3, make and g++ (npm builds better-sqlite3, rt's SQLite
# driver, from source with node-gyp), and gcc (the sandbox tests compile an
# io_uring attack, test/shell/corpus/io_uring.c), python3-nbformat (Jupyter's own
# notebook library, the notebook tests' oracle), ghostscript, qpdf and poppler-utils (the
# PDF tests make PDFs with Ghostscript, encrypt them with qpdf, and check read's text
# against poppler's pdftotext), tmux (the full-screen UI's tests type into a real terminal
# and read its screen). Needs root (or sudo) and apt-get; on a
# machine without apt-get it says what to install and carries on.
set -euo pipefail
need=()
command -v git >/dev/null || need+=(git)
command -v bwrap >/dev/null || need+=(bubblewrap)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
ls /usr/share/postgresql/*/extension/dblink.control >/dev/null 2>&1 || need+=(postgresql-contrib)
command -v runuser >/dev/null || need+=(util-linux)
command -v python3 >/dev/null || need+=(python3)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v gcc >/dev/null || need+=(gcc)
command -v tmux >/dev/null || need+=(tmux)
# Jupyter's nbformat, the oracle of the notebook tests (Debian's python3, not a pyenv one).
/usr/bin/python3 -c "import nbformat" >/dev/null 2>&1 || need+=(python3-nbformat)
command -v gs >/dev/null || need+=(ghostscript)
command -v qpdf >/dev/null || need+=(qpdf)
command -v pdftotext >/dev/null || need+=(poppler-utils)
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
