#!/usr/bin/env bash
# Where the receiver's peak RSS goes: the Datadog receiver into a nop
# exporter under the perf corpus's zstd logs for 15 s, once at the shipped
# garbage-collector pace and once at GOGC=100, with the runtime's trace of
# each collection (heap at its start -> end -> live after). Prints CPU per
# record, VmHWM split into anonymous memory and mapped files, and the
# last collections, and a heap profile taken 10 s into the load (pprof
# extension of testdata/perf/nop.yaml): what the live heap holds, and what
# allocates the garbage between collections. After `make build`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/perf-load.sh
log=$(mktemp)
heap=$(mktemp)
trap 'rm -f "$log" "$heap"' EXIT
for pace in tuned GOGC=100; do
  env=(); [[ $pace == GOGC=100 ]] && env=(GOGC=100)
  env "${env[@]}" GODEBUG=gctrace=1 bin/otelhouse --config testdata/perf/nop.yaml --feature-gates=receiver.datadog >"$log" 2>&1 &
  pid=$!
  "$LOADGEN" wait --target http://127.0.0.1:18126 --timeout 60s >/dev/null
  (sleep 12; curl -s -o "$heap" 'http://127.0.0.1:1777/debug/pprof/heap') &
  grab=$!
  result=$("$LOADGEN" run --target http://127.0.0.1:18126 --corpus "$PERFH/corpus" --kind logs_zstd --duration 15s \
    --warmup 2s --concurrency 4 --pid "$pid" --label "$pace" | grep '^RESULT')
  mem=$(awk '/VmHWM|RssAnon|RssFile/ {printf "%s %d MB  ", $1, $2/1024}' "/proc/$pid/status")
  wait "$grab" || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "PACE $pace $(grep -o 'cpu_us_per_item=[0-9.]*' <<<"$result")  $mem collections=$(grep -c '^gc ' "$log")"
  echo "  last collections, heap start->end->live: $(grep '^gc ' "$log" | tail -3 | grep -o '[0-9]*->[0-9]*->[0-9]* MB' | tr '\n' ' ')"
  if [[ $pace == tuned ]]; then
    echo "  live heap at the last collection (inuse_space):"
    go tool pprof -top -sample_index=inuse_space -nodecount 12 "$heap" 2>/dev/null | sed -n '/flat%/,$p' | sed 's/^/    /'
    echo "  allocated since start (alloc_space), the garbage between collections:"
    go tool pprof -top -sample_index=alloc_space -nodecount 12 "$heap" 2>/dev/null | sed -n '/flat%/,$p' | sed 's/^/    /'
  fi
done
