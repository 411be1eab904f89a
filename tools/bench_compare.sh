#!/usr/bin/env bash
# bench_compare.sh BEFORE_BUILD AFTER_BUILD [ROUNDS] - is a change slower?
# Runs bench_models and bench_engine of two build directories (same build
# type, e.g. RelWithDebInfo) in alternation, ROUNDS times each (default
# 5), and prints the median rate of each benchmark for both builds and
# their ratio after / before. Alternating runs in one session shares the
# machine's noise between the two; stop other work first.
#   KSIM_BENCH_RECORDS   records per bench_models scenario (default 10^7)
#   KSIM_BENCH_CUSTOMERS customers of bench_engine's queue (default 10^6)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 rounds=${3:-5}
records=${KSIM_BENCH_RECORDS:-10000000}
customers=${KSIM_BENCH_CUSTOMERS:-1000000}
for b in "$before" "$after"; do
  for t in bench_models bench_engine; do
    [ -x "$b/$t" ] || { echo "$0: $b/$t: not built" >&2; exit 2; }
  done
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One round of one build: "name rate" lines (M records/s, M events/s).
run_round() {
  local build=$1
  (cd "$(dirname "$0")/.." && "$build/bench_models" "$records") |
    awk '/M records\/s/ { print $1, $2 }'
  "$build/bench_engine" "$customers" 1 | awk '/ksim engine/ { print "engine", $3 }'
}

for r in $(seq "$rounds"); do
  run_round "$before" >> "$out/before"
  run_round "$after" >> "$out/after"
  echo "round $r of $rounds done" >&2
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-24s %12s %12s %8s\n' benchmark before after ratio
for name in $(awk '{ print $1 }' "$out/before" | sort -u); do
  b=$(awk -v n="$name" '$1 == n { print $2 }' "$out/before" | median)
  a=$(awk -v n="$name" '$1 == n { print $2 }' "$out/after" | median)
  unit="M rec/s"
  [ "$name" = engine ] && unit="M ev/s"
  printf '%-24s %12s %12s %8.3f  (%s, median of %d)\n' "$name" "$b" "$a" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')" "$unit" "$rounds"
done
