#!/usr/bin/env bash
# What each skip index of the exporter's logs (or traces) table costs the
# engine's merges, and what the columns' codec costs them: the part of storage's
# CPU that separates the shipped rate from the merges-stopped ceiling
# (docs/performance.md, "Stored against the engine's ceiling").
#
#   scripts/bench-merge-cost.sh           (after `make build libchdb`)
#   DURATION=20s ROUNDS=2 KIND=traces_v04 scripts/bench-merge-cost.sh
#
# Loads the load tool's corpus (KIND, logs_zstd by default) through the whole binary for
# DURATION with merges stopped, then, for each variant, copies the stored
# rows into a table like the exporter's (in parts of 65,536 rows, no
# indexes built at insert, as shipped) and times one merge of all of them
# (OPTIMIZE … FINAL): wall time and the process's CPU time, which is the
# merge's alone as nothing else runs then. Variants: every index (as
# shipped), none, each index alone, and every index with LZ4 in place of
# ZSTD(1) on the string and map columns.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-20s}"
KIND="${KIND:-logs_zstd}"
table=otel_logs; [[ $KIND == traces_* ]] && table=otel_traces
. scripts/perf-load.sh
export OTELHOUSE_DATA_DIR
OTELHOUSE_DATA_DIR="$(mktemp -d)"
# The collector's log is kept (LOG) for a run that fails.
LOG="${LOG:-/tmp/bench-merge-cost.log}"
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; cp "$OTELHOUSE_DATA_DIR/collector.log" "$LOG"; rm -rf "$OTELHOUSE_DATA_DIR"' EXIT

sql() { curl -sS --fail-with-body -u "default:$(cat "$OTELHOUSE_DATA_DIR/clickhouse-password")" 127.0.0.1:18123/ --data-binary "$1"; }
cpu_s() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$pid/stat"; }

bin/otelhouse --config testdata/perf/store.yaml --feature-gates=receiver.datadog >"$OTELHOUSE_DATA_DIR/collector.log" 2>&1 &
pid=$!
"$LOADGEN" wait --target http://127.0.0.1:18126 --timeout 60s >/dev/null
until sql "SELECT 1" >/dev/null 2>&1 && [[ "$(sql "EXISTS TABLE otel.$table")" == 1 ]]; do sleep 0.5; done
sql "SYSTEM STOP MERGES otel.$table"
"$LOADGEN" run --target http://127.0.0.1:18126 --corpus "$PERFH/corpus" --kind "$KIND" --duration "$DURATION" \
  --warmup 0s --concurrency 4 --pid "$pid" --label merges-stopped | grep -E "^RESULT"
prev=-1
while :; do rows=$(sql "SELECT count() FROM otel.$table"); [[ "$rows" == "$prev" ]] && break; prev=$rows; sleep 2; done
echo "ROWS $rows"

indexes=$(sql "SELECT name FROM system.data_skipping_indices WHERE database = 'otel' AND table = '$table' ORDER BY name FORMAT TSV")
columns=$(sql "SELECT name FROM system.columns WHERE database = 'otel' AND table = '$table'
  AND default_kind = '' AND (type LIKE '%String%' OR type LIKE 'Map%') AND compression_codec LIKE '%ZSTD%' FORMAT TSV")
variants="all none lz4"
for i in $indexes; do variants+=" only:$i"; done

for round in $(seq "${ROUNDS:-1}"); do for v in $variants; do
  sql "CREATE TABLE otel.variant AS otel.$table"
  sql "SYSTEM STOP MERGES otel.variant"
  for i in $indexes; do
    case $v in all | lz4) ;; "only:$i") ;; *) sql "ALTER TABLE otel.variant DROP INDEX $i" ;; esac
  done
  if [[ $v == lz4 ]]; then
    for c in $columns; do
      type=$(sql "SELECT type FROM system.columns WHERE database = 'otel' AND table = '$table' AND name = '$c' FORMAT TSV")
      sql "ALTER TABLE otel.variant MODIFY COLUMN \`$c\` $type CODEC(LZ4)"
    done
  fi
  sql "INSERT INTO otel.variant SELECT * FROM otel.$table SETTINGS max_insert_block_size = 65536, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 0"
  parts=$(sql "SELECT count() FROM system.parts WHERE active AND database = 'otel' AND table = 'variant'")
  sql "SYSTEM START MERGES otel.variant"
  c0=$(cpu_s); t0=$(date +%s.%N)
  sql "OPTIMIZE TABLE otel.variant FINAL"
  t1=$(date +%s.%N); c1=$(cpu_s)
  bytes=$(sql "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'otel' AND table = 'variant'")
  sql "DROP TABLE otel.variant SYNC"
  awk -v v="$v" -v n="$round" -v p="$parts" -v r="$rows" -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" -v s="$bytes" \
    -v k="$KIND" 'BEGIN { printf "MERGE kind=%s round=%d variant=%s parts=%d rows=%d wall_s=%.2f cpu_s=%.2f cpu_us_per_row=%.2f bytes_per_row=%.1f\n", k, n, v, p, r, b-a, d-c, (d-c)*1e6/r, s/r }'
done; done
