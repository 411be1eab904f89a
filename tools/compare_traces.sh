#!/usr/bin/env bash
# compare_traces.sh KSIM_BEFORE KSIM_AFTER [SCENARIO...] - a refactor keeps
# behaviour: runs every scenario (default scenarios/*.json) with both
# binaries at trace level debug and compares trace and summary byte for
# byte. Prints one line per scenario and, for the first difference of a
# trace, the two lines; exits 1 if any scenario differs.
#   KSIM_COMPARE_SET="path=value ..."  --set overrides for both runs
#   KSIM_COMPARE_LEVEL=batch           another trace level
set -uo pipefail
before=$1 after=$2
shift 2
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- scenarios/*.json
level=${KSIM_COMPARE_LEVEL:-debug}
sets=()
for kv in ${KSIM_COMPARE_SET:-}; do sets+=(--set "$kv"); done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
differ=0
for s in "$@"; do
  n=$(basename "$s" .json)
  "$before" run "$s" -q --trace-level "$level" "${sets[@]}" --out "$out/a/$n" 2> "$out/a.err"
  ra=$?
  "$after" run "$s" -q --trace-level "$level" "${sets[@]}" --out "$out/b/$n" 2> "$out/b.err"
  rb=$?
  if [ $ra != $rb ]; then
    echo "DIFF $n: exit $ra before, $rb after"; differ=1; continue
  fi
  if [ ! -e "$out/a/$n/trace.jsonl" ] && [ ! -e "$out/b/$n/trace.jsonl" ]; then
    # refused by both (exit 2): the messages must agree
    if cmp -s "$out/a.err" "$out/b.err"; then echo "same $n (exit $ra, no trace)"; continue; fi
    echo "DIFF $n: both exit $ra without a trace, with other messages"
    diff "$out/a.err" "$out/b.err" | head -6 | sed 's/^/  /'; differ=1; continue
  fi
  if ! cmp -s "$out/a/$n/trace.jsonl" "$out/b/$n/trace.jsonl"; then
    line=$(cmp "$out/a/$n/trace.jsonl" "$out/b/$n/trace.jsonl" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
    echo "DIFF $n: trace differs from line ${line:-?}"
    [ -n "$line" ] && { echo "  before: $(sed -n "${line}p" "$out/a/$n/trace.jsonl" | cut -c1-300)";
                        echo "  after:  $(sed -n "${line}p" "$out/b/$n/trace.jsonl" | cut -c1-300)"; }
    differ=1; continue
  fi
  if ! cmp -s "$out/a/$n/summary.json" "$out/b/$n/summary.json"; then
    echo "DIFF $n: summary differs:"
    diff "$out/a/$n/summary.json" "$out/b/$n/summary.json" | head -8 | sed 's/^/  /'
    differ=1; continue
  fi
  echo "same $n ($(wc -l < "$out/a/$n/trace.jsonl") lines)"
done
exit $differ
