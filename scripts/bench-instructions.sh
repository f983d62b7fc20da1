#!/usr/bin/env bash
# Instructions one benchmark operation executes: steadier than its time on
# a shared host (±5% drift within minutes), so small changes can be judged.
# Runs the benchmark under cachegrind (Debian's valgrind, installed if
# missing) for N1 and N2 iterations with the collector off and prints
# (I(N2) - I(N1)) / (N2 - N1): setup and the first run cancel out.
#
#   scripts/bench-instructions.sh PACKAGE BENCHMARK [N1 N2]
#   scripts/bench-instructions.sh ./receiver/datadogreceiver/internal/metrics 'SeriesV2Corpus$'
#
# Built with the binary's profile (distribution/default.pgo) unless
# PGO=off; PERF_CORPUS is passed on for the corpus benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=${1:?package}; bench=${2:?benchmark}; n1=${3:-200}; n2=${4:-600}
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" -pgo="${PGO:-$PWD/distribution/default.pgo}" "$pkg"
count() {
  GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "${1}x" 2>&1 |
    awk '/I *refs:/ {gsub(",", "", $4); print $4}'
}
a=$(count "$n1"); b=$(count "$n2")
echo "$bench: $(((b - a) / (n2 - n1))) instructions/op"
