#!/usr/bin/env bash
# bench_compare.sh BEFORE_BUILD AFTER_BUILD [ROUNDS] - is a change slower?
# Runs bench_models and bench_engine of two build directories (same build
# type, e.g. RelWithDebInfo) ROUNDS times each (default 5), the two builds
# one after the other in each round and in turns first, and prints for
# each benchmark the median rate of both builds and the median and
# quartiles of the rounds' ratios after / before. A round's two runs share
# the machine's minute, so its ratio holds still while a shared machine's
# rates move by 20% and more from one minute to the next: a change of a
# few percent needs 15 to 40 rounds to show. Stop other work first.
#   KSIM_BENCH_RECORDS   records per bench_models scenario (default 10^7)
#   KSIM_BENCH_CUSTOMERS customers of bench_engine's queue (default 10^6)
#   KSIM_BENCH_SCENARIOS bench_models' scenario files (default its three)
# bench_models' own settings pass through, e.g. KSIM_BENCH_PRODUCERS=1000
# or KSIM_BENCH_SET="topics.clicks.partitions=100000".
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 rounds=${3:-5}
records=${KSIM_BENCH_RECORDS:-10000000}
customers=${KSIM_BENCH_CUSTOMERS:-1000000}
read -r -a scenarios <<< "${KSIM_BENCH_SCENARIOS:-}"
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
  (cd "$(dirname "$0")/.." && "$build/bench_models" "$records" "${scenarios[@]}") |
    awk '/M records\/s/ { print $1, $2 }'
  "$build/bench_engine" "$customers" 1 | awk '/ksim engine/ { print "engine", $3 }'
}

for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then
    run_round "$before" > "$out/b"
    run_round "$after" > "$out/a"
  else
    run_round "$after" > "$out/a"
    run_round "$before" > "$out/b"
  fi
  cat "$out/b" >> "$out/before"
  cat "$out/a" >> "$out/after"
  # the round's ratios, name by name (rates: after / before)
  awk 'NR == FNR { b[$1] = $2; next } ($1 in b) && b[$1] > 0 { print $1, $2 / b[$1] }' \
    "$out/b" "$out/a" >> "$out/ratios"
  echo "round $r of $rounds done" >&2
done

# at Q of a column of numbers: 0.5 the median, 0.25 and 0.75 the quartiles
at() { sort -g | awk -v q="$1" '{ v[NR] = $1 } END { i = int(q * (NR - 1) + 1.5); print v[i] }'; }
printf '%-24s %12s %12s %8s %15s\n' benchmark before after ratio "(quartiles)"
awk '{ print $1 }' "$out/before" | sort -u > "$out/names"
while read -r name; do
  b=$(awk -v n="$name" '$1 == n { print $2 }' "$out/before" | at 0.5)
  a=$(awk -v n="$name" '$1 == n { print $2 }' "$out/after" | at 0.5)
  r=$(awk -v n="$name" '$1 == n { print $2 }' "$out/ratios")
  unit="M rec/s"
  [ "$name" = engine ] && unit="M ev/s"
  printf '%-24s %12s %12s %8.3f %7.3f-%-7.3f (%s, medians of %d rounds)\n' "$name" "$b" "$a" \
    "$(at 0.5 <<< "$r")" "$(at 0.25 <<< "$r")" "$(at 0.75 <<< "$r")" "$unit" "$rounds"
done < "$out/names"
