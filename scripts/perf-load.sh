# Sourced by the scripts that load the binary with ../shared/perf's load
# tool: builds the tool and generates its corpus once (both kept in PERFH),
# and points the embedded engine at libchdb.
PERF="${PERF:-../shared/perf}"
PERFH="${PERFH:-/tmp/otelhouse-perf}"
LOADGEN="$PERFH/loadgen"
[[ -x "$LOADGEN" ]] || (cd "$PERF/loadgen" && GOFLAGS=-mod=mod go build -o "$LOADGEN" .)
[[ -d "$PERFH/corpus/logs_zstd" ]] || "$LOADGEN" gen --out "$PERFH/corpus"
: "${OTELHOUSE_LIBCHDB:=$PWD/.cache/chdb/26.7.3-stable.1/libchdb.so}"
export OTELHOUSE_LIBCHDB
