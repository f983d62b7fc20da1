#!/usr/bin/env bash
# Writes distribution/default.pgo, the CPU profile `go build` uses to
# optimise the binary (profile-guided optimisation: hot calls inlined,
# hot indirect calls devirtualised). The profile is the receiver's work on
# the perf corpus: for each payload kind, the Datadog receiver into a nop
# exporter under the load tool, profiled for PROFILE_SECONDS through the
# pprof extension of testdata/perf/nop.yaml; the profiles are merged into
# one. After `make build`; rebuild after it (`make build` picks the file
# up). Redo it when the decoders change much: a stale profile still
# builds, it only guides less.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/perf-load.sh
KINDS="${KINDS:-traces_v04 traces_v02_gzip series_v2_zstd series_v2_deflate series_v1_gzip logs_zstd logs_gzip}"
PROFILE_SECONDS="${PROFILE_SECONDS:-10}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for kind in $KINDS; do
  bin/otelhouse --config testdata/perf/nop.yaml --feature-gates=receiver.datadog >"$dir/$kind.log" 2>&1 &
  pid=$!
  "$LOADGEN" wait --target http://127.0.0.1:18126 --timeout 60s >/dev/null
  (sleep 4; curl -sf -o "$dir/$kind.pprof" "http://127.0.0.1:1777/debug/pprof/profile?seconds=$PROFILE_SECONDS") &
  grab=$!
  "$LOADGEN" run --target http://127.0.0.1:18126 --corpus "$PERFH/corpus" --kind "$kind" \
    --duration "$((PROFILE_SECONDS + 6))s" --warmup 2s --concurrency 4 --pid "$pid" --label pgo 2>>"$dir/$kind.log" | grep '^RESULT' |
    grep -o 'kind=[^ ]*\|cpu_us_per_item=[0-9.]*' | tr '\n' ' '
  echo
  wait "$grab"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
go tool pprof -proto "$dir"/*.pprof >distribution/default.pgo
echo "wrote distribution/default.pgo ($(wc -c <distribution/default.pgo) bytes) from: $KINDS"
