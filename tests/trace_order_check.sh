#!/bin/sh
# trace_order_check.sh KSIM SCENARIOS_DIR OUT_DIR - every scenario's trace
# (at trace level debug, the most lines) is in virtual-time order, as
# docs/trace.md promises: each line's "t" is at least the one before.
# Prints the first line out of order of each trace that has one; exits 1
# if any has.
ksim=$1 dir=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
bad=0
for s in "$dir"/*.json; do
  n=$(basename "$s" .json)
  "$ksim" run "$s" -q --no-expect --trace-level debug --out "$out/$n" || { echo "$n: run failed"; bad=1; continue; }
  # every line starts {"t":N, (the writer's fixed order)
  if ! awk -v name="$n" '
    { if (substr($0, 1, 5) != "{\"t\":") { print name ": line " NR ": no leading t"; exit 1 }
      t = substr($0, 6) + 0
      if (NR > 1 && t < last) { print name ": line " NR " (t=" t ") comes after t=" last; exit 1 }
      last = t }' "$out/$n/trace.jsonl"; then
    bad=1
  fi
done
rm -rf "$out"
exit $bad
