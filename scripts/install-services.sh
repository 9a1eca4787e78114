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

SCRIPT=install-services.sh
# shellcheck source=scripts/apt.sh
source "$(dirname "$0")/apt.sh"
apt_setup "${packages[@]}"

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

echo "install-services.sh: installing ${packages[*]}..."
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
