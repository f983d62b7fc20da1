#!/usr/bin/env bash
# Sustained ingest through the whole binary into the embedded ClickHouse:
# replays the load tool's corpus (Datadog v0.4 traces, then zstd logs)
# for DURATION at a closed loop, then counts the rows that landed and how
# long they took, and reports the collector's peak memory.
#   scripts/bench-storage.sh            (after `make build libchdb`)
#   KINDS=logs_zstd DURATION=60s scripts/bench-storage.sh
# CONFIG picks another collector config; several, space-separated, are
# run in turn ROUNDS times (default 1), interleaved, because this host's
# speed drifts by up to 20% between runs and only interleaved runs compare.
# SETUP_SQL runs once the table exists (e.g. an ALTER … MODIFY SETTING to
# try), WRAP prefixes the collector's command (e.g. perf record; the RSS
# figures are then the wrapper's).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-30s}"
CONFIG="${CONFIG:-testdata/perf/store.yaml}"
. scripts/perf-load.sh

sql() { curl -s -u "default:$(cat "$OTELHOUSE_DATA_DIR/clickhouse-password" 2>/dev/null)" 127.0.0.1:18123/ --data-binary "$1"; }

for round in $(seq "${ROUNDS:-1}"); do for config in $CONFIG; do for kind in ${KINDS:-traces_v04 logs_zstd}; do
  table=otel_traces; [[ $kind == logs_* ]] && table=otel_logs
  export OTELHOUSE_DATA_DIR; OTELHOUSE_DATA_DIR="$(mktemp -d)"
  ${WRAP:-} bin/otelhouse --config "$config" --feature-gates=receiver.datadog >"$OTELHOUSE_DATA_DIR/collector.log" 2>&1 &
  pid=$!
  "$LOADGEN" wait --target http://127.0.0.1:18126 --timeout 60s >/dev/null
  until sql "SELECT 1" >/dev/null 2>&1 && [[ "$(sql "EXISTS TABLE otel.$table")" == 1 ]]; do sleep 0.5; done
  [[ -z "${SETUP_SQL:-}" ]] || sql "$SETUP_SQL"
  t0=$(date +%s.%N)
  # RSS every 5 s while loading, to show whether memory stays flat, with
  # its anonymous part: the rest is mapped files, mostly libchdb and the
  # queue file, which grows with a backlog until it drains and is compacted.
  (while kill -0 "$pid" 2>/dev/null; do
     awk '/VmRSS/ {r = $2} /RssAnon/ {a = $2} END {printf "%d/%d ", r/1024, a/1024}' "/proc/$pid/status" 2>/dev/null; sleep 5
   done) >"$OTELHOUSE_DATA_DIR/rss.txt" &
  sampler=$!
  "$LOADGEN" run --target http://127.0.0.1:18126 --corpus "$PERFH/corpus" --kind "$kind" --duration "$DURATION" \
    --warmup 0s --concurrency 4 --pid "$pid" --label store | grep -E '^RESULT' | tee "$OTELHOUSE_DATA_DIR/result.txt"
  sent=$(grep -o 'items=[0-9]*' "$OTELHOUSE_DATA_DIR/result.txt" | cut -d= -f2)
  # The backlog the engine has yet to store, on disk.
  queue_mb=$(du -sm "$OTELHOUSE_DATA_DIR/queue" | cut -f1)
  # Rows keep landing after the load stops while the queue drains.
  prev=-1; rows=0
  while :; do rows=$(sql "SELECT count() FROM otel.$table"); [[ "$rows" == "$prev" ]] && break; prev=$rows; sleep 2; done
  t1=$(date +%s.%N)
  parts=$(sql "SELECT count() FROM system.parts WHERE active AND database = 'otel' AND table = '$table'")
  disk=$(sql "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'otel' AND table = '$table'")
  hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$pid/status")
  # What the merges cost (the engine's own counters, since it started):
  # rows merged per row stored, and the merges' wall time, of it the
  # stage that builds the text indexes again.
  read -r merged merge_ms text_ms < <(sql "SELECT sumIf(value, event = 'MergedRows'), sumIf(value, event = 'MergeTotalMilliseconds'),
    sumIf(value, event = 'MergeTextIndexStageTotalMilliseconds') FROM system.events FORMAT TSV")
  # What the engine's insert path alone takes, for the same rows: they are
  # inserted again into an empty copy of the table, with its merges
  # stopped, in blocks of the exporter's batch size (8,192) on both cores;
  # the time to read them back (measured apart: the engine's user may not
  # make a Memory table) is taken off. No HTTP, no decoding, no queue, no
  # merges. (The pipeline's ceiling with merges stopped is a run of its
  # own: SETUP_SQL="SYSTEM STOP MERGES".)
  sql "CREATE TABLE otel.ceiling AS otel.$table"
  sql "SYSTEM STOP MERGES otel.ceiling"
  r0=$(date +%s.%N)
  sql "SELECT * FROM otel.$table FORMAT Null SETTINGS max_threads = 2"
  r1=$(date +%s.%N)
  sql "INSERT INTO otel.ceiling SELECT * FROM otel.$table SETTINGS max_insert_block_size = 8192, min_insert_block_size_rows = 8192, min_insert_block_size_bytes = 0, max_insert_threads = 2, max_threads = 2"
  c1=$(date +%s.%N)
  ceiling_rows=$(sql "SELECT count() FROM otel.ceiling")
  sql "DROP TABLE otel.ceiling"
  kill -TERM "$pid"; wait "$pid" || true
  wait "$sampler" 2>/dev/null || true
  echo "RSS_MB kind=$kind every_5s (total/anonymous): $(cat "$OTELHOUSE_DATA_DIR/rss.txt")"
  awk -v k="$kind" -v r="$rows" -v s="$sent" -v a="$t0" -v b="$t1" -v m="$hwm" -v p="$parts" -v c="$config" -v n="$round" -v q="$queue_mb" -v d="$disk" \
    -v cr="$ceiling_rows" -v r0="$r0" -v r1="$r1" -v c1="$c1" -v mr="$merged" -v mm="$merge_ms" -v tm="$text_ms" \
    'BEGIN { printf "STORED config=%s round=%d kind=%s acknowledged=%d rows=%d seconds=%.1f rows_per_s=%.0f engine_insert_rows_per_s=%.0f peak_rss_mb=%d active_parts=%d queue_mb_when_load_ended=%d bytes_on_disk_per_row=%.1f merged_rows_per_row=%.2f merge_s=%.1f text_index_merge_s=%.1f\n", c, n, k, s, r, b-a, r/(b-a), cr/((c1-r1)-(r1-r0)), m, p, q, d/r, mr/r, mm/1000, tm/1000 }'
  rm -rf "$OTELHOUSE_DATA_DIR"
done; done; done
