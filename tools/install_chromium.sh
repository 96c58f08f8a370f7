#!/usr/bin/env bash
# The browser tests need a Chromium (tests/browser/); `make test` runs this first, so that on a fresh
# Debian or Ubuntu machine the one test command also installs the browser. Nothing is downloaded from
# anywhere but the system's package manager, and nothing is done when a Chromium is already there.
set -euo pipefail

if [ -n "${BPE_COURSE_CHROMIUM:-}" ]; then
    [ -x "$BPE_COURSE_CHROMIUM" ] && exit 0
    echo "install_chromium: BPE_COURSE_CHROMIUM=$BPE_COURSE_CHROMIUM is not an executable file" >&2
    exit 1
fi
for candidate in chromium chromium-browser; do
    command -v "$candidate" >/dev/null 2>&1 && exit 0
done

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_chromium: the browser tests need Chromium and this machine has no apt-get;" \
         "install Chromium with your package manager, or set BPE_COURSE_CHROMIUM to a Chromium binary" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "install_chromium: the browser tests need Chromium: run 'apt-get install chromium' as root," \
         "or set BPE_COURSE_CHROMIUM to a Chromium binary" >&2
    exit 1
fi
echo "install_chromium: installing Debian's chromium for the browser tests (apt-get)"
$as_root apt-get update -qq
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
