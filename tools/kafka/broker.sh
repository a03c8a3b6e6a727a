#!/usr/bin/env bash
# Single-node Apache Kafka broker (KRaft: broker and controller in one JVM) on loopback, for tests
# and benchmarks.
#
#   tools/kafka/broker.sh start   fetch the broker jars from Maven Central when missing (pom.xml),
#                                 write target/server.properties, format fresh storage under
#                                 target/data with a random cluster id, start the broker in the
#                                 background (pid in target/broker.pid, log in target/broker.log)
#                                 and wait until it serves; prints "kafka ready on HOST:PORT".
#   tools/kafka/broker.sh stop    stop the broker started by `start` and wait until it has exited.
#
# Both are idempotent: `start` with a live broker only prints the ready line, `stop` without one
# does nothing. Needs Java 17+ and, for the first start, Maven with access to Maven Central.
#
# Environment:
#   STAMP_KAFKA_PORT             client listener port on 127.0.0.1 (default 19092)
#   STAMP_KAFKA_CONTROLLER_PORT  KRaft controller listener port on 127.0.0.1 (default 19093)
#   STAMP_KAFKA_START_TIMEOUT    seconds to wait for the broker to serve (default 120)
#   STAMP_KAFKA_HEAP             JVM heap options (default "-Xms256m -Xmx512m")
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$here/target"
lib="$target/lib"
data="$target/data"
pid_file="$target/broker.pid"
log_file="$target/broker.log"
out_file="$target/broker.out"
port="${STAMP_KAFKA_PORT:-19092}"
controller_port="${STAMP_KAFKA_CONTROLLER_PORT:-19093}"
timeout_s="${STAMP_KAFKA_START_TIMEOUT:-120}"
heap="${STAMP_KAFKA_HEAP:--Xms256m -Xmx512m}"

log() { echo "kafka: $*" >&2; }

# Prints the pid of the running broker started by this script, or fails.
running_pid() {
  [ -f "$pid_file" ] || return 1
  local pid
  pid="$(cat "$pid_file")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

# Succeeds when something accepts TCP connections on 127.0.0.1:$1.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

fetch_jars() {
  if compgen -G "$lib/kafka_2.13-*.jar" >/dev/null; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || { log "Maven (mvn) is needed to fetch the broker jars"; exit 1; }
  log "fetching the broker jars from Maven Central"
  rm -rf "$lib"
  mkdir -p "$target"
  if ! mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$lib" >"$target/fetch.out" 2>&1; then
    log "fetching the broker jars failed:"
    cat "$target/fetch.out" >&2
    rm -rf "$lib"
    exit 1
  fi
}

# A random KRaft cluster id: 16 random bytes, URL-safe base64 without padding (as Uuid.toString),
# never starting with "-" (as Uuid.randomUuid).
cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    case "$id" in -*) ;; *) echo "$id"; return ;; esac
  done
}

start() {
  local pid
  mkdir -p "$target"
  if pid="$(running_pid)" && port_open "$port"; then
    echo "kafka ready on 127.0.0.1:$port"
    return 0
  fi
  if pid="$(running_pid)"; then
    log "a broker (pid $pid) is running but not serving on $port; stopping it"
    stop
  fi
  rm -f "$pid_file"
  for p in "$port" "$controller_port"; do
    if port_open "$p"; then
      log "port 127.0.0.1:$p is already in use by another process"
      exit 1
    fi
  done
  command -v java >/dev/null 2>&1 || { log "Java 17+ is needed to run the broker"; exit 1; }
  fetch_jars

  rm -rf "$data" "$log_file" "$out_file" "$target/format.log"
  mkdir -p "$data"
  sed -e "s#@PORT@#$port#g" -e "s#@CONTROLLER_PORT@#$controller_port#g" -e "s#@DATA_DIR@#$data#g" \
    "$here/server.properties.template" >"$target/server.properties"

  local java_opts=(
    -Djava.awt.headless=true
    "-Dlog4j2.configurationFile=$here/log4j2.properties"
    "-Dkafka.logs.dir=$target"
    -cp "$lib/*"
  )
  if ! java -Xmx256m "-Dstamp.kafka.log.file=$target/format.log" "${java_opts[@]}" \
    kafka.tools.StorageTool format \
    --config "$target/server.properties" --cluster-id "$(cluster_id)" --ignore-formatted \
    >"$target/format.out" 2>&1; then
    log "formatting the storage failed:"
    cat "$target/format.out" >&2
    exit 1
  fi

  # The JVM gets no terminal and no inherited pipes, so callers piping this script never hang.
  # shellcheck disable=SC2086 # heap holds several options
  nohup java $heap -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "-Dstamp.kafka.log.file=$log_file" \
    "${java_opts[@]}" \
    kafka.Kafka "$target/server.properties" </dev/null >"$out_file" 2>&1 &
  pid=$!
  echo "$pid" >"$pid_file"

  local deadline=$((SECONDS + timeout_s))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "the broker exited during start; last lines of its logs:"
      tail -n 40 "$log_file" "$out_file" >&2 2>/dev/null || true
      rm -f "$pid_file"
      exit 1
    fi
    # Bound sockets accept before the broker serves; "Kafka Server started" marks the end of start.
    if port_open "$port" && grep -q "Kafka Server started" "$log_file" 2>/dev/null; then
      break
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "the broker did not serve on 127.0.0.1:$port within ${timeout_s}s; last lines of its logs:"
      tail -n 40 "$log_file" "$out_file" >&2 2>/dev/null || true
      stop
      exit 1
    fi
    sleep 0.2
  done
  echo "kafka ready on 127.0.0.1:$port"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$pid_file"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "the broker (pid $pid) did not stop within 30s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  # Wait until the pid is gone (it is not a child of this shell when stop runs separately).
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  rm -f "$pid_file"
  log "stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
