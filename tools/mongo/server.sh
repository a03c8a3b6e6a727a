#!/usr/bin/env bash
# MongoDB wire-compatible stand-in (mongo-java-server, in-memory) for the MongoDB adapters' suites.
#   tools/mongo/server.sh start   fetches the jars from Maven Central if missing, starts the server
#                                 in the background on 127.0.0.1:${STAMP_MONGO_PORT:-27018} and
#                                 waits until it accepts connections (60 s at most)
#   tools/mongo/server.sh stop    stops the server started by `start`
#   tools/mongo/server.sh status  exits 0 when it runs
# Both commands are idempotent. The data lives in memory only and is gone after `stop`.
# Environment: STAMP_MONGO_PORT (default 27018), STAMP_MONGO_HEAP (JVM max heap, default 384m).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

port="${STAMP_MONGO_PORT:-27018}"
heap="${STAMP_MONGO_HEAP:-384m}"
target="target"
pid_file="$target/mongo-stand-in-$port.pid"
log_file="$target/mongo-stand-in-$port.log"
timeout_s=60

# Whether 127.0.0.1:$port accepts a TCP connection.
accepts() {
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

# The pid of the running server started by this script, or nothing.
running_pid() {
  if [[ -f "$pid_file" ]]; then
    local pid
    pid="$(cat "$pid_file")"
    # The pid must still be this stand-in, not a process that reused the number.
    if [[ -n "$pid" ]] && ps -p "$pid" -o args= 2>/dev/null | grep -q "MongoStandIn.java $port"; then
      echo "$pid"
      return
    fi
  fi
}

fetch_jars() {
  if compgen -G "$target/lib/mongo-java-server-core-*.jar" >/dev/null; then
    return
  fi
  command -v mvn >/dev/null || { echo "mvn not found: Maven is needed to fetch the stand-in" >&2; exit 1; }
  echo "fetching mongo-java-server from Maven Central"
  mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory="$target/lib"
}

start() {
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]] && accepts; then
    echo "mongodb stand-in ready on 127.0.0.1:$port (already running, pid $pid)"
    return
  fi
  if [[ -z "$pid" ]] && accepts; then
    echo "127.0.0.1:$port is already taken by another process; set STAMP_MONGO_PORT" >&2
    exit 1
  fi
  command -v java >/dev/null || { echo "java not found: Java 17+ is needed to run the stand-in" >&2; exit 1; }
  mkdir -p "$target"
  fetch_jars
  if [[ -z "$pid" ]]; then
    nohup java -Xms32m "-Xmx$heap" -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      -cp "$target/lib/*" MongoStandIn.java "$port" </dev/null >"$log_file" 2>&1 &
    pid=$!
    echo "$pid" >"$pid_file"
  fi
  local deadline=$((SECONDS + timeout_s))
  until accepts; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "mongodb stand-in exited before accepting connections; log tail:" >&2
      tail -n 30 "$log_file" >&2 || true
      rm -f "$pid_file"
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "mongodb stand-in did not accept connections on 127.0.0.1:$port within ${timeout_s} s; log tail:" >&2
      tail -n 30 "$log_file" >&2 || true
      kill "$pid" 2>/dev/null || true
      rm -f "$pid_file"
      exit 1
    fi
    sleep 0.2
  done
  echo "mongodb stand-in ready on 127.0.0.1:$port"
}

stop() {
  local pid
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    rm -f "$pid_file"
    echo "mongodb stand-in not running"
    return
  fi
  kill "$pid"
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
  echo "mongodb stand-in stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status)
    if [[ -n "$(running_pid)" ]] && accepts; then
      echo "mongodb stand-in running on 127.0.0.1:$port"
    else
      echo "mongodb stand-in not running"
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
