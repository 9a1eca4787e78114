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

SCRIPT=install-browser.sh
# shellcheck source=scripts/apt.sh
source "$(dirname "$0")/apt.sh"
apt_setup chromium chromium-driver

echo "install-browser.sh: installing chromium and chromium-driver..."
apt_step update
apt_step install -y --no-install-recommends chromium chromium-driver

for bin in "$CHROMIUM" "$CHROMEDRIVER"; do
    if [[ ! -x "$bin" ]]; then
        echo "install-browser.sh: $bin is still missing after installing" >&2
        exit 1
    fi
done
echo "install-browser.sh: $("$CHROMEDRIVER" --version 2>/dev/null || echo chromedriver installed)"
