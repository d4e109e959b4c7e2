#!/usr/bin/env bash
# Daemon HTTP overhead: GET / (health) and one lookup route against a bare hyper-express hello server,
# interleaved in one run (../shared/bench/compare.cjs, wrk). Loopback only, bounded: ROUNDS × DURATION s.
# usage: bench/http-overhead.sh  (after npm run build; needs wrk and taskset)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-5}
SHARED=${SHARED_BENCH:-../shared/bench}
DATA=${DATA_DIR:-$(mktemp -d)}
HELLO_PORT=8091 DAEMON_PORT=8090

# A daemon of a previous run may still be draining: netintel refuses to start on a port another one serves.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in $HELLO_PORT $DAEMON_PORT; do
  for _ in $(seq 1 50); do port_busy "$p" || break; sleep 0.2; done
  if port_busy "$p"; then echo "port $p is still in use; stop whatever serves it first" >&2; exit 1; fi
done

taskset -c 0 node bench/servers/hyperexpress-hello.mjs $HELLO_PORT > /dev/null & HELLO_PID=$!
NETINTEL_HOST=127.0.0.1 NETINTEL_PORT=$DAEMON_PORT NETINTEL_WORKERS=1 NETINTEL_DATA_DIR="$DATA" \
  NETINTEL_RATE_LIMIT_LOCAL=0 NETINTEL_RATE_LIMIT_NETWORK=0 NETINTEL_IMPORT_DEFAULTS=${IMPORT_DEFAULTS:-false} NETINTEL_LOG_LEVEL=${LOG_LEVEL:-info} \
  taskset -c 0 node dist/cli.js serve > /tmp/netintel-bench.log 2>&1 & DAEMON_PID=$!
trap 'kill $HELLO_PID $DAEMON_PID 2>/dev/null || true' EXIT
for i in $(seq 1 300); do curl -sf -o /dev/null "http://127.0.0.1:$DAEMON_PORT/" && break; sleep 0.2; done

echo "== GET / (health) vs bare hyper-express hello =="
node "$SHARED/compare.cjs" --rounds "$ROUNDS" --duration "$DURATION" --warmup 2 --prefix / --ips bench/health-path.txt \
  --pids "$HELLO_PID,$DAEMON_PID" hello=http://127.0.0.1:$HELLO_PORT netintel-health=http://127.0.0.1:$DAEMON_PORT
if [ -n "${LOOKUP_PREFIX:-}" ]; then
  echo "== GET ${LOOKUP_PREFIX}<ip> vs bare hyper-express hello =="
  node "$SHARED/compare.cjs" --rounds "$ROUNDS" --duration "$DURATION" --warmup 2 --prefix "$LOOKUP_PREFIX" \
    --pids "$HELLO_PID,$DAEMON_PID" hello=http://127.0.0.1:$HELLO_PORT netintel=http://127.0.0.1:$DAEMON_PORT
fi
