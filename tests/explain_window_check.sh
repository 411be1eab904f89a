#!/bin/sh
# explain_window_check.sh KSIM SCENARIOS_DIR OUT_DIR [SCENARIO...]
# - `ksim explain` with a window (--from/--to, with --record, --partition,
# --brief, mermaid, a small --max-steps) writes what it writes for the
# trace cut just after its last line at or before --to (the whole trace
# without --to), and exits the same way. With --to, reading stops at the
# first line past it: [RESULT] shows the state at --to and says so, and
# calls the summary's figures the whole run's; those words are put back
# as the cut trace has them before comparing. The reference reads the cut
# trace with every line parsed (KSIM_EXPLAIN_READ_ALL=1), the summary
# copied beside it. Windows: the start, the middle, the end, empty
# (between two lines), from = to at the moment with the most lines, past
# the end, --from or --to alone; over each scenario's trace at level
# record and at level debug. Prints each difference; exits 1 if any.
ksim=$1 dir=$2 out=$3
shift 3
scen=${*:-"hello seed-at-least-once seed-idempotent seed-transaction-commit seed-zombie-fencing
  transaction-timeout consume-transform-produce two-consumer-groups offsets-per-partition"}
rm -rf "$out"
mkdir -p "$out/cut"
bad=0 runs=0

# ms NS: nanoseconds as --from/--to take them (milliseconds, 6 decimals).
ms() { awk -v n="$1" 'BEGIN { printf "%d.%06d", int(n / 1000000), n % 1000000 }'; }

# cut TRACE ARGS...: the trace up to its last line at or before --to
# (all of it without --to; the header always) in $out/cut/trace.jsonl
cut() {
  tr=$1 to=""
  shift
  while [ $# -gt 1 ]; do
    [ "$1" = --to ] && to=$(echo "$2" | awk -F. '{ printf "%d", $1 * 1000000 + $2 }')
    shift
  done
  awk -v to="$to" 'NR > 1 && to != "" { t = substr($0, 6) + 0; if (t > to + 0) exit } { print }' \
    "$tr" > "$out/cut/trace.jsonl"
}

# The words of a windowed [RESULT] (text and Mermaid) as the cut trace has them.
unwindow() {
  sed -e 's/\[RESULT\] the state at t=[0-9]*\.[0-9]\{3\} ms, the end of the window: the trace goes on past it/[RESULT] the trace stops before its end line: the run was cut short/' \
      -e 's/delivery checker, over the whole run (/delivery checker (/g' \
      -e 's/ record\(s\{0,1\}\) over the whole run (summary\.json;/ record\1 (summary.json;/g' \
      -e 's/not in the trace up to t=[0-9]*\.[0-9]\{3\} ms/not in this trace/g' \
      -e 's/no record up to t=[0-9]*\.[0-9]\{3\} ms has the key/no record has the key/'
}

# same TRACE ARGS...: the explanation, and the exit status, against the
# cut trace's (its name put back).
same() {
  runs=$((runs + 1))
  tr=$1
  shift
  cut "$tr" "$@"
  "$ksim" explain "$tr" "$@" > "$out/got" 2>&1; echo "exit $?" >> "$out/got"
  unwindow < "$out/got" > "$out/new"
  KSIM_EXPLAIN_READ_ALL=1 "$ksim" explain "$out/cut/trace.jsonl" "$@" > "$out/old" 2>&1
  echo "exit $?" >> "$out/old"
  sed "s|$out/cut/trace.jsonl|$tr|g" "$out/old" > "$out/ref"
  if ! cmp -s "$out/ref" "$out/new"; then
    echo "differs: ksim explain $tr $*"
    diff "$out/ref" "$out/new" | head -10
    bad=1
  fi
}

for n in $scen; do
  for level in record debug; do
    run=$out/$n-$level
    "$ksim" run "$dir/$n.json" -q --no-expect --trace-level "$level" --out "$run" ||
      { echo "$n: run failed"; bad=1; continue; }
    tr=$run/trace.jsonl
    cp "$run/summary.json" "$out/cut/summary.json"
    sed -n 's/^{"t":\([0-9]*\),.*/\1/p' "$tr" > "$out/times"
    lines=$(wc -l < "$out/times")
    at() { sed -n "$(( ($1 * (lines - 1)) / 100 + 1 ))p" "$out/times"; }
    t10=$(ms "$(at 10)") t33=$(ms "$(at 33)") t50=$(ms "$(at 50)")
    t90=$(ms "$(at 90)") t97=$(ms "$(at 97)")
    last=$(tail -1 "$out/times")
    # the moment with the most lines, and a gap between two lines
    busy=$(ms "$(sort -n "$out/times" | uniq -c | sort -k1,1nr -k2,2n | awk 'NR == 1 { print $2 }')")
    gap=$(uniq "$out/times" | awk 'NR > 1 && $1 - p > 2 { print p + 1, $1 - 1; exit } { p = $1 }')
    part=$(sed -n 's/.*"ev":"append".*"topic":"\([^"]*\)","partition":\([0-9]*\).*/\1-\2/p' "$tr" | head -1)
    set -- "--from 0 --to $t10" "--to $t10" "--from $t33 --to $t50" "--from $t90 --to $t97"
    set -- "$@" "--from $busy --to $busy" "--from $t50" "--from $t50 --to $(ms $((last + 1)))"
    set -- "$@" "--from $(ms $((last + 1)))"
    [ -n "$gap" ] && set -- "$@" "--from $(ms "${gap% *}") --to $(ms "${gap#* }")"
    for w in "$@"; do
      # shellcheck disable=SC2086 # a window is several words
      same "$tr" $w
    done
    for opt in "--brief" "--format mermaid" "--record 0" "--max-steps 3" \
               ${part:+"--partition $part"}; do
      # shellcheck disable=SC2086
      same "$tr" --from "$t33" --to "$t50" $opt
    done
    same "$tr" --from "$t90" --format mermaid
    same "$tr" --to "$t10" --record 1 --brief
  done
done
echo "explain windows: $runs compared"
[ "$bad" = 0 ] && rm -rf "$out"
exit $bad
