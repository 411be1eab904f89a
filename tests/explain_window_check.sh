#!/bin/sh
# explain_window_check.sh KSIM SCENARIOS_DIR OUT_DIR [REF_KSIM] [SCENARIO...]
# - `ksim explain` with a window (--from/--to, with --record, --partition,
# --brief, mermaid, a small --max-steps) writes the same bytes and exits
# the same way as the reference: the same binary with every line parsed
# and followed (KSIM_EXPLAIN_READ_ALL=1), or REF_KSIM when given (e.g. a
# build of an older commit). Windows: the start, the middle, the end,
# empty (between two lines), from = to at one line and at a moment with
# several lines, past the end, --from or --to alone; over each scenario's
# trace at level record and at level debug. Prints each difference;
# exits 1 if any.
ksim=$1 dir=$2 out=$3 ref=${4:-}
[ $# -ge 4 ] && shift 4 || shift $#
scen=${*:-"hello seed-at-least-once seed-idempotent seed-lost-request seed-transaction-commit
  seed-zombie-fencing transaction-marker-retry transaction-timeout lost-ack-storm-idempotent
  consume-transform-produce two-consumer-groups delayed-produce-classic rr-vs-sticky
  offsets-per-partition"}
rm -rf "$out"
mkdir -p "$out"
bad=0 runs=0

# ms NS: nanoseconds as --from/--to take them (milliseconds, 6 decimals).
ms() { awk -v n="$1" 'BEGIN { printf "%d.%06d", int(n / 1000000), n % 1000000 }'; }

# same ARGS...: the explanation, and the exit status, against the reference.
same() {
  runs=$((runs + 1))
  "$ksim" explain "$@" > "$out/new" 2>&1; echo "exit $?" >> "$out/new"
  if [ -n "$ref" ]; then
    "$ref" explain "$@" > "$out/old" 2>&1; echo "exit $?" >> "$out/old"
  else
    KSIM_EXPLAIN_READ_ALL=1 "$ksim" explain "$@" > "$out/old" 2>&1; echo "exit $?" >> "$out/old"
  fi
  if ! cmp -s "$out/old" "$out/new"; then
    echo "differs: ksim explain $*"
    diff "$out/old" "$out/new" | head -10
    bad=1
  fi
}

for n in $scen; do
  for level in record debug; do
    run=$out/$n-$level
    "$ksim" run "$dir/$n.json" -q --no-expect --trace-level "$level" --out "$run" ||
      { echo "$n: run failed"; bad=1; continue; }
    tr=$run/trace.jsonl
    sed -n 's/^{"t":\([0-9]*\),.*/\1/p' "$tr" > "$out/times"
    lines=$(wc -l < "$out/times")
    at() { sed -n "$(( ($1 * (lines - 1)) / 100 + 1 ))p" "$out/times"; }
    t10=$(ms "$(at 10)") t33=$(ms "$(at 33)") t50=$(ms "$(at 50)") t90=$(ms "$(at 90)")
    last=$(tail -1 "$out/times")
    # the moment with the most lines, and a gap between two lines
    busy=$(ms "$(sort -n "$out/times" | uniq -c | sort -k1,1nr -k2,2n | awk 'NR == 1 { print $2 }')")
    gap=$(uniq "$out/times" | awk 'NR > 1 && $1 - p > 2 { print p + 1, $1 - 1; exit } { p = $1 }')
    part=$(sed -n 's/.*"ev":"append".*"topic":"\([^"]*\)","partition":\([0-9]*\).*/\1-\2/p' "$tr" | head -1)
    set -- "--from 0 --to $t10" "--to $t10" "--from $t33 --to $t50" "--from $t90"
    set -- "$@" "--from $t50 --to $t50" "--from $busy --to $busy" "--from $t50"
    set -- "$@" "--from $(ms $((last + 1)))" "--from $(ms "$last") --to $(ms "$last")"
    [ -n "$gap" ] && set -- "$@" "--from $(ms "${gap% *}") --to $(ms "${gap#* }")"
    for w in "$@"; do
      # shellcheck disable=SC2086 # a window is several words
      same "$tr" $w
    done
    for opt in "--brief" "--format mermaid" "--record 0" "--max-steps 3" \
               ${part:+"--partition $part"}; do
      # shellcheck disable=SC2086
      same "$tr" --from "$t33" --to "$t50" $opt
      # shellcheck disable=SC2086
      same "$tr" --from "$t90" $opt
    done
  done
done
echo "explain windows: $runs compared"
[ "$bad" = 0 ] && rm -rf "$out"
exit $bad
