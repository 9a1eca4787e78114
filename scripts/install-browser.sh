#!/usr/bin/env bash
# Install headless Chromium and its WebDriver (Debian packages chromium and
# chromium-driver) for the browser tests in crates/oxo-browser-tests.
# Idempotent: does nothing when /usr/bin/chromium and /usr/bin/chromedriver
# are already there.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
CHROMEDRIVER=/usr/bin/chromedriver

if [[ -x "$CHROMIUM" && -x "$CHROMEDRIVER" ]]; then
    exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-browser.sh: need root (or sudo) to install chromium and chromium-driver;" >&2
    echo "  install them yourself: apt-get install chromium chromium-driver" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser.sh: apt-get not found; install Chromium and chromedriver" >&2
    echo "  so that $CHROMIUM and $CHROMEDRIVER exist" >&2
    exit 1
fi

# Run an apt-get step quietly; when it fails, show everything apt said
# (its explanation of a failed install goes to stdout, not stderr).
apt_step() {
    local log
    log="$(mktemp)"
    if ! "${SUDO[@]}" apt-get "$@" >"$log" 2>&1; then
        echo "install-browser.sh: apt-get $* failed:" >&2
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

echo "install-browser.sh: installing chromium and chromium-driver..."
export DEBIAN_FRONTEND=noninteractive
apt_step update
apt_step install -y --no-install-recommends chromium chromium-driver

for bin in "$CHROMIUM" "$CHROMEDRIVER"; do
    if [[ ! -x "$bin" ]]; then
        echo "install-browser.sh: $bin is still missing after installing" >&2
        exit 1
    fi
done
echo "install-browser.sh: $("$CHROMEDRIVER" --version 2>/dev/null || echo chromedriver installed)"
