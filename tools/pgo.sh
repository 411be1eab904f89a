#!/usr/bin/env bash
# pgo.sh [ROUNDS] - builds ksim with profile-guided optimisation and
# measures what it gains. Three builds of this tree (RelWithDebInfo):
# build-pgo-base (plain), build-pgo-gen (KSIM_PGO=generate; its training
# run is bench_models at 10^6 records over the three rr-vs-sticky
# scenarios, bench_engine, and every scenario at record level) and
# build-pgo (KSIM_PGO=use, from those profiles). It checks that the PGO
# build computes the same traces as the plain one (tools/compare_traces.sh)
# and prints both builds' benchmark rates side by side
# (tools/bench_compare.sh, ROUNDS rounds, default 3). Stop other work
# first: the figures are only as quiet as the machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
cd "$root"
prof="$root/build-pgo-gen/pgo-profiles"
rm -rf "$prof"
build() { # DIR [CMAKE ARGS...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKSIM_TESTS=OFF "$@" >/dev/null
  cmake --build "$dir" -j2 --target ksim_bin bench_models bench_engine >/dev/null
}
echo "== plain build (build-pgo-base)"
build build-pgo-base
echo "== instrumented build (build-pgo-gen) and its training run"
build build-pgo-gen -DKSIM_PGO=generate -DKSIM_PGO_DIR="$prof"
build-pgo-gen/bench_models 1000000 >/dev/null
build-pgo-gen/bench_engine 300000 1 >/dev/null
train=$(mktemp -d)
trap 'rm -rf "$train"' EXIT
for s in scenarios/*.json; do
  build-pgo-gen/ksim run "$s" --quiet --no-expect --trace-level record \
    --out "$train/$(basename "$s" .json)" >/dev/null || true
done
echo "== optimised build (build-pgo) from $prof"
build build-pgo -DKSIM_PGO=use -DKSIM_PGO_DIR="$prof"
echo "== the same traces"
tools/compare_traces.sh build-pgo-base/ksim build-pgo/ksim > "$train/compare.log" \
  || { cat "$train/compare.log"; echo "pgo.sh: the PGO build computes other traces" >&2; exit 1; }
echo "  $(grep -c '^same' "$train/compare.log") scenarios: identical traces and summaries"
echo "== rates: plain (before) against PGO (after)"
tools/bench_compare.sh build-pgo-base build-pgo "$rounds"
