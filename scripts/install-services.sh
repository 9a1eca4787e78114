#!/usr/bin/env bash
# Install the services that oxo's multi-node tests start for themselves
# (Debian packages postgresql and haproxy). The tests run their own
# throwaway PostgreSQL cluster and HAProxy in temp dirs; nothing here
# starts or configures a system service.
# Idempotent: does nothing when initdb (/usr/lib/postgresql/*/bin/initdb)
# and /usr/sbin/haproxy are already there.
set -euo pipefail

HAPROXY=/usr/sbin/haproxy

have_initdb() {
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

packages=()
have_initdb || packages+=(postgresql)
[[ -x "$HAPROXY" ]] || packages+=(haproxy)
if [[ ${#packages[@]} -eq 0 ]]; then
    exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-services.sh: need root (or sudo) to install ${packages[*]};" >&2
    echo "  install them yourself: apt-get install ${packages[*]}" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-services.sh: apt-get not found; install ${packages[*]}" >&2
    echo "  so that /usr/lib/postgresql/<version>/bin/initdb and $HAPROXY exist" >&2
    exit 1
fi

# Both packages start their system service when installed. Where there is
# no init system (a container) that start fails and can fail the install,
# and the tests never use those services anyway: forbid service starts for
# the length of the install with a policy-rc.d that refuses them (exit
# 101), unless the machine already has a policy of its own.
POLICY=/usr/sbin/policy-rc.d
if [[ ! -e "$POLICY" ]]; then
    printf '#!/bin/sh\n# Written by oxo scripts/install-services.sh; removed when it ends.\nexit 101\n' |
        "${SUDO[@]}" tee "$POLICY" >/dev/null
    "${SUDO[@]}" chmod 755 "$POLICY"
    trap '"${SUDO[@]}" rm -f "$POLICY"' EXIT
fi

# Run an apt-get step quietly; when it fails, show everything apt said
# (its explanation of a failed install goes to stdout, not stderr).
apt_step() {
    local log
    log="$(mktemp)"
    if ! "${SUDO[@]}" apt-get "$@" >"$log" 2>&1; then
        echo "install-services.sh: apt-get $* failed:" >&2
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

echo "install-services.sh: installing ${packages[*]}..."
export DEBIAN_FRONTEND=noninteractive
apt_step update
apt_step install -y --no-install-recommends "${packages[@]}"

if ! have_initdb; then
    echo "install-services.sh: /usr/lib/postgresql/*/bin/initdb is still missing after installing" >&2
    exit 1
fi
if [[ ! -x "$HAPROXY" ]]; then
    echo "install-services.sh: $HAPROXY is still missing after installing" >&2
    exit 1
fi
echo "install-services.sh: $("$HAPROXY" -v 2>/dev/null | head -n 1 || echo haproxy installed)"
