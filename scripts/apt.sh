# Shared by scripts/install-*.sh (sourced, not run): how to become root for
# apt-get, and one apt-get step that shows everything apt said when it
# fails. The caller sets SCRIPT (its name, for messages) and calls
# `apt_setup PACKAGES...` before `apt_step ...`.

# SUDO=() as root, SUDO=(sudo) where sudo exists; otherwise say what to
# install by hand and exit 1. Also exit 1 without apt-get.
apt_setup() {
    if [[ "$(id -u)" -eq 0 ]]; then
        SUDO=()
    elif command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "$SCRIPT: need root (or sudo) to install $*;" >&2
        echo "  install them yourself: apt-get install $*" >&2
        exit 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "$SCRIPT: apt-get not found; install $* yourself" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
}

# Run an apt-get step quietly; when it fails, show everything apt said
# (its explanation of a failed install goes to stdout, not stderr).
apt_step() {
    local log
    log="$(mktemp)"
    if ! "${SUDO[@]}" apt-get "$@" >"$log" 2>&1; then
        echo "$SCRIPT: apt-get $* failed:" >&2
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}
