#!/bin/sh
# Installs netintel as a systemd service (run as root). See "Install as a service" in README.md.
#
#   scripts/install.sh [--binary FILE] [--data-from DIR | --no-data] [--no-start]
#   scripts/install.sh --uninstall [--purge]
#
# Installs:
#   /usr/local/bin/netintel                  the single executable (npm run build:binary)
#   /etc/systemd/system/netintel.service     the hardened unit (always replaced: local changes go in a drop-in)
#   /etc/netintel/netintel.env               settings; never overwritten once it exists (a new template
#                                            goes beside it as netintel.env.dist when it differs)
#   /usr/local/share/doc/netintel/           README.md and systemd/README.md
#   /var/lib/netintel/                       the data directory, created empty or filled with default data:
#       --data-from DIR   copy a prepared data directory (scripts/build-data.mjs, or one from another host);
#       otherwise dist/netintel-data/ or netintel-data/ beside this script's tree when present; otherwise,
#       in a source tree with node_modules, build it there (scripts/build-data.mjs, ~30 s); a data
#       directory that already holds a store is never touched.
# Creates the system user "netintel". Starts the service (systemctl daemon-reload && enable --now, or
# restart when it runs already) only when systemd is the init system; otherwise prints what to run.
#
# --uninstall stops and removes everything but the data (/var/lib/netintel) and an edited env file;
# --purge removes those and the user as well. Every run is idempotent.
# DESTDIR=/some/root installs below that root (for packaging and tests): no user, no chown, no systemctl.
set -eu

prog=install.sh
here=$(cd "$(dirname "$0")" && pwd)
# The tree this script ships in: a source checkout or a copy of it (scripts/install.sh, systemd/, dist/).
if [ -f "$here/../systemd/netintel.service" ]; then root=$(cd "$here/.." && pwd); else root=$here; fi

DESTDIR=${DESTDIR:-}
USER_NAME=netintel
BIN=/usr/local/bin/netintel
UNIT=/etc/systemd/system/netintel.service
ENV_DIR=/etc/netintel
ENV_FILE=$ENV_DIR/netintel.env
DOC_DIR=/usr/local/share/doc/netintel
STATE_DIR=/var/lib/netintel
CACHE_DIR=/var/cache/netintel

binary=
data_from=
no_data=0
no_start=0
uninstall=0
purge=0

say() { printf '%s: %s\n' "$prog" "$*"; }
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case $1 in
    --binary) [ $# -ge 2 ] || die "--binary needs a file"; binary=$2; shift 2 ;;
    --binary=*) binary=${1#*=}; shift ;;
    --data-from) [ $# -ge 2 ] || die "--data-from needs a directory"; data_from=$2; shift 2 ;;
    --data-from=*) data_from=${1#*=}; shift ;;
    --no-data) no_data=1; shift ;;
    --no-start) no_start=1; shift ;;
    --uninstall) uninstall=1; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[ "$purge" = 0 ] || [ "$uninstall" = 1 ] || die "--purge goes with --uninstall"

if [ -z "$DESTDIR" ] && [ "$(id -u)" != 0 ]; then
  die "run as root (sudo $0 ...), or set DESTDIR to install below another root"
fi
case $DESTDIR in ''|/*) ;; *) DESTDIR=$(pwd)/$DESTDIR ;; esac
DESTDIR=${DESTDIR%/}

# systemd is the init system: the documented test (sd_booted) is the existence of /run/systemd/system.
systemd_running() {
  [ -z "$DESTDIR" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1
}
live() { [ -z "$DESTDIR" ]; }

start_hint() {
  say "systemd is not running here (or DESTDIR is set): nothing was started. On the target host run:"
  say "  systemctl daemon-reload && systemctl enable --now netintel"
}

# ---- uninstall -------------------------------------------------------------------------------------
if [ "$uninstall" = 1 ]; then
  if systemd_running; then
    systemctl disable --now netintel.service >/dev/null 2>&1 || true
  fi
  rm -f "$DESTDIR$BIN" "$DESTDIR$UNIT" "$DESTDIR$ENV_FILE.dist"
  rm -rf "$DESTDIR$DOC_DIR" "$DESTDIR$CACHE_DIR" "$DESTDIR/etc/systemd/system/netintel.service.d"
  if systemd_running; then systemctl daemon-reload; fi
  template="$root/systemd/netintel.env"
  if [ "$purge" = 1 ]; then
    rm -rf "$DESTDIR$ENV_DIR" "$DESTDIR$STATE_DIR"
    if live && getent passwd "$USER_NAME" >/dev/null 2>&1; then userdel "$USER_NAME" >/dev/null 2>&1 || true; fi
    say "netintel removed, with its data, settings and user"
  else
    # An unedited env file is ours to remove; an edited one is the operator's, like the data.
    if [ -f "$DESTDIR$ENV_FILE" ] && [ -f "$template" ] && cmp -s "$template" "$DESTDIR$ENV_FILE"; then
      rm -f "$DESTDIR$ENV_FILE"
    fi
    rmdir "$DESTDIR$ENV_DIR" 2>/dev/null || true
    kept=$STATE_DIR
    [ -f "$DESTDIR$ENV_FILE" ] && kept="$kept and the edited $ENV_FILE"
    say "netintel removed; kept $kept (--uninstall --purge removes them)"
  fi
  exit 0
fi

# ---- install ---------------------------------------------------------------------------------------
[ -f "$root/systemd/netintel.service" ] || die "cannot find systemd/netintel.service beside $here"

if [ -z "$binary" ]; then
  for c in "$root/dist/netintel-linux-x64" "$root/netintel-linux-x64"; do
    if [ -f "$c" ]; then binary=$c; break; fi
  done
  if [ -z "$binary" ] && [ -f "$root/package.json" ] && [ -d "$root/node_modules" ] && command -v npm >/dev/null 2>&1; then
    say "no binary yet: building it (npm run build:binary)"
    (cd "$root" && npm run --silent build:binary) || die "the binary build failed"
    binary=$root/dist/netintel-linux-x64
  fi
  [ -n "$binary" ] || die "no binary: pass --binary FILE, or run \`npm run build:binary\` in a source tree"
fi
[ -f "$binary" ] || die "binary $binary does not exist"
"$binary" --version >/dev/null 2>&1 || die "$binary does not run on this host (it needs Linux x86-64, glibc 2.36 or later)"

# Writes a file through a temporary copy and a rename: a running service keeps its open executable,
# and an interrupted install never leaves half a file under the real name.
put() { # mode source target
  mkdir -p "$(dirname "$3")"
  tmp="$3.tmp.$$"
  cp "$2" "$tmp" && chmod "$1" "$tmp" && mv -f "$tmp" "$3" || { rm -f "$tmp"; die "cannot write $3"; }
}

if live && ! getent passwd "$USER_NAME" >/dev/null 2>&1; then
  nologin=$(command -v nologin || echo /usr/sbin/nologin)
  useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell "$nologin" \
    --comment "netintel lookup daemon" "$USER_NAME" || die "cannot create the system user $USER_NAME"
  say "created system user $USER_NAME"
fi

if [ -f "$DESTDIR$BIN" ] && cmp -s "$binary" "$DESTDIR$BIN"; then
  binary_changed=0
else
  put 0755 "$binary" "$DESTDIR$BIN"
  binary_changed=1
fi
if [ -f "$DESTDIR$UNIT" ] && cmp -s "$root/systemd/netintel.service" "$DESTDIR$UNIT"; then
  unit_changed=0
else
  put 0644 "$root/systemd/netintel.service" "$DESTDIR$UNIT"
  unit_changed=1
fi
put 0644 "$root/systemd/README.md" "$DESTDIR$DOC_DIR/systemd-README.md"
[ -f "$root/README.md" ] && put 0644 "$root/README.md" "$DESTDIR$DOC_DIR/README.md"

mkdir -p "$DESTDIR$ENV_DIR"
if [ ! -f "$DESTDIR$ENV_FILE" ]; then
  put 0640 "$root/systemd/netintel.env" "$DESTDIR$ENV_FILE"
  live && chgrp "$USER_NAME" "$DESTDIR$ENV_FILE"
  rm -f "$DESTDIR$ENV_FILE.dist"
  say "installed $ENV_FILE (edit it, then: systemctl restart netintel)"
elif cmp -s "$root/systemd/netintel.env" "$DESTDIR$ENV_FILE"; then
  rm -f "$DESTDIR$ENV_FILE.dist"
else
  put 0644 "$root/systemd/netintel.env" "$DESTDIR$ENV_FILE.dist"
  say "kept your edited $ENV_FILE; this version's template is $ENV_FILE.dist"
fi

mkdir -p "$DESTDIR$STATE_DIR"
chmod 0750 "$DESTDIR$STATE_DIR"
state_owner() { live && chown -R "$USER_NAME:$USER_NAME" "$DESTDIR$STATE_DIR"; return 0; }

is_store() { [ -f "$1/netintel.db" ] && [ "$(head -c 15 "$1/netintel.db")" = "SQLite format 3" ]; }

if [ -e "$DESTDIR$STATE_DIR/netintel.db" ]; then
  say "kept the existing data in $STATE_DIR"
elif [ "$no_data" = 1 ]; then
  say "no data installed (--no-data): the service starts with datasets unloaded; import with \`netintel import\`"
else
  if [ -z "$data_from" ]; then
    for c in "$root/dist/netintel-data" "$root/netintel-data"; do
      if is_store "$c"; then data_from=$c; break; fi
    done
  fi
  if [ -n "$data_from" ]; then
    is_store "$data_from" || die "$data_from is not a netintel data directory (no SQLite netintel.db in it)"
    # Everything but staging leftovers of an interrupted import on the source host.
    (cd "$data_from" && find . -mindepth 1 -maxdepth 1 ! -name staging -exec cp -R -p {} "$DESTDIR$STATE_DIR/" \;)
    say "copied the data directory $data_from to $STATE_DIR"
  elif [ -f "$root/scripts/build-data.mjs" ] && [ -d "$root/node_modules" ] && command -v node >/dev/null 2>&1; then
    if [ ! -f "$root/dist/main.js" ]; then (cd "$root" && npm run --silent build) || die "npm run build failed"; fi
    say "importing the default data into $STATE_DIR (about 30 s)"
    node "$root/scripts/build-data.mjs" "$DESTDIR$STATE_DIR" || die "the default data import failed"
  else
    say "warning: no default data found: the service starts with geo, oui and asn unloaded (health \"degraded\")."
    say "  Copy a prepared data directory with --data-from DIR (scripts/build-data.mjs builds one), or import"
    say "  datasets with: sudo -u $USER_NAME NETINTEL_DATA_DIR=$STATE_DIR netintel import <dataset> <file>..."
  fi
fi
state_owner

if [ "$no_start" = 1 ]; then
  say "installed; not started (--no-start)"
  exit 0
fi
if systemd_running; then
  systemctl daemon-reload
  if systemctl is-active --quiet netintel.service; then
    if [ "$binary_changed" = 1 ] || [ "$unit_changed" = 1 ]; then systemctl restart netintel.service; fi
    systemctl enable netintel.service >/dev/null 2>&1
  else
    systemctl enable --now netintel.service
  fi
  say "netintel is running: systemctl status netintel; logs: journalctl -u netintel -f"
else
  say "installed $("$DESTDIR$BIN" --version 2>/dev/null || echo netintel)"
  start_hint
fi
