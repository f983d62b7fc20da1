#!/usr/bin/env bash
# The receiver's CPU per item and peak memory on each payload kind of the
# load tool (cmd/otelhouse-load): for every kind a fresh collector started
# with COMMAND, the corpus replayed at it for DURATION after WARMUP over
# CONCURRENCY keep-alive connections, and the collector's CPU divided by
# the items it answered 2xx. The last table (medians over ROUNDS) is the
# one to quote.
#
#   scripts/bench-corpus.sh "bin/otelhouse --config testdata/perf/nop.yaml --feature-gates=receiver.datadog"
#   KINDS="traces_v04 logs_zstd" ROUNDS=3 scripts/bench-corpus.sh "…"
#
# Knobs: KINDS, DURATION=20s, WARMUP=3s, CONCURRENCY=4, RATE=0 (as fast as
# answered), ROUNDS=1, TARGET_URL=http://127.0.0.1:18126, IDLE_WAIT=1 (wait
# for a quiet host first), PERFH=/tmp/otelhouse-load (tool, corpus, results).
set -uo pipefail
cd "$(dirname "$0")/.."
CMD="${1:?usage: scripts/bench-corpus.sh \"COMMAND THAT STARTS THE COLLECTOR\"}"
. scripts/perf-load.sh || exit 1
URL="${TARGET_URL:-http://127.0.0.1:18126}"
KINDS="${KINDS:-traces_v04 traces_v05 traces_v02_gzip series_v2_zstd series_v2_deflate series_v1_gzip logs_gzip logs_zstd}"
OUT="$PERFH/results/$(date +%Y%m%d-%H%M%S)"; mkdir -p "$OUT"; RESULTS="$OUT/results.txt"; : >"$RESULTS"
pid=""
stop() { [[ -n "$pid" ]] && { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }; pid=""; }
trap stop EXIT
for round in $(seq 1 "${ROUNDS:-1}"); do
  for kind in $KINDS; do
    [[ "${IDLE_WAIT:-1}" == 1 ]] && "$LOADGEN" idle --max-busy-pct 15 --timeout 120s
    log="$OUT/$kind-r$round.log"
    # exec: the pid is the collector's own, whose CPU is measured.
    bash -c "exec $CMD" >"$log" 2>&1 & pid=$!
    "$LOADGEN" wait --target "$URL" --timeout 60s || { echo "bench-corpus: the collector did not start (log $log)" >&2; tail -5 "$log" >&2; exit 1; }
    sleep 1
    "$LOADGEN" run --target "$URL" --corpus "$PERFH/corpus" --kind "$kind" --duration "${DURATION:-20s}" --warmup "${WARMUP:-3s}" \
      --concurrency "${CONCURRENCY:-4}" --rate "${RATE:-0}" --pid "$pid" --label "${LABEL:-otelhouse}" | tee -a "$RESULTS"
    stop
  done
done
"$LOADGEN" report "$RESULTS" | tee "$OUT/table.txt"
