# Sourced by the scripts that load the binary with the project's load tool
# (cmd/otelhouse-load): builds it and writes its corpus once (both kept in
# PERFH; the corpus is what PERF_CORPUS benchmarks read), and points the
# embedded engine at libchdb.
PERFH="${PERFH:-/tmp/otelhouse-load}"
LOADGEN="$PERFH/otelhouse-load"
mkdir -p "$PERFH" || return 1
go build -o "$LOADGEN" ./cmd/otelhouse-load || return 1
[[ -f "$PERFH/corpus/logs_zstd/index.json" ]] || "$LOADGEN" gen --out "$PERFH/corpus" || return 1
: "${OTELHOUSE_LIBCHDB:=$PWD/.cache/chdb/26.7.3-stable.1/libchdb.so}"
export OTELHOUSE_LIBCHDB
