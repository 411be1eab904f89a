#!/usr/bin/env bash
# bench.sh [BUILD_DIR] - every benchmark, and one table of the figures
# against ksim's speed targets. BUILD_DIR (default build) holds ksim,
# bench_engine and bench_models, built RelWithDebInfo or Release.
#
# Measures: the engine against a bare heap in the same binary; the models
# at 10^7 records; the cost per engine event as partitions (12 ... 100 000)
# and producers (1 ... 1000) grow, for each keyless partitioner (and for
# round-robin, whose batches change from 10 records to one on the way,
# from 1 200 to 100 000 partitions, the same mix); the fixed
# cost of a 100 000-partition run; what record-level tracing costs; and
# the rates at which explain and report read a trace, next to Python's
# json module on the same lines, and explain's time for a 200-step window
# near the start and near the end of that trace. Figures are wall clock
# on this machine: run it on an idle one, and read the ratios. Nothing is asserted; the
# last column says whether a target is met.
#
# A shared machine's noise only ever adds time, so each rate and each
# scaling point is the fastest of several runs, and the runs a ratio
# compares are taken in turn, round by round, so that they share the
# machine's minute rather than each having its own.
#   KSIM_BENCH_QUICK=1   fewer records (a smoke run, for the figures' shape)
#   KSIM_BENCH_ROUNDS=N  runs of each (default 5; 3 when quick)
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
for t in ksim bench_engine bench_models; do
  [ -x "$build/$t" ] || { echo "$0: $build/$t: not built" >&2; exit 2; }
done
quick=${KSIM_BENCH_QUICK:-0}
big=10000000 mid=1000000 tr=1000000
[ "$quick" = 1 ] && { big=1000000; mid=200000; tr=200000; }
rounds=${KSIM_BENCH_ROUNDS:-$([ "$quick" = 1 ] && echo 3 || echo 5)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rows=$out/rows
: > "$rows"
scen=(rr-vs-sticky rr-vs-sticky-sticky rr-vs-sticky-uniform)

# row WHAT FIGURE UNIT TARGET_OP TARGET [RATIO_TEXT]: one line of the table.
row() {
  local what=$1 fig=$2 unit=$3 op=$4 target=$5 ok
  ok=$(awk -v f="$fig" -v o="$op" -v t="$target" 'BEGIN {
         if (f == "n/a" || t == "-") { print "-"; exit }
         if ((o == ">=" && f >= t) || (o == "<=" && f <= t)) print "yes"; else print "NO" }')
  printf '%-52s %10s %-10s %3s %-8s %s\n' "$what" "$fig" "$unit" "$op" "$target" "$ok" >> "$rows"
}

# field LINE NAME: the number before NAME in a bench_models line.
field() { awk -v k="$2" '{ for (i = 2; i <= NF; i++) if ($i == k) { print $(i - 1); exit } }' <<< "$1"; }
ns_event() { awk '{ for (i = 2; i <= NF; i++) if ($i == "ns/event") { print $(i - 1); exit } }' <<< "$1"; }
ns_batch() { awk '{ for (i = 2; i <= NF; i++) if ($i == "ns/batch") { print $(i - 1); exit } }' <<< "$1"; }
# best FILE KEY COLUMN low|high: the lowest (or highest) of KEY's figures
best() {
  awk -v k="$2" -v c="$3" -v hi="$([ "$4" = high ] && echo 1 || echo 0)" '
    $1 == k && (n++ == 0 || (hi ? $c > b : $c < b)) { b = $c } END { print b }' "$1"
}

models_run() { # RECORDS SCENARIO [env...]: one bench_models line
  local n=$1 s=$2; shift 2
  env "$@" "$build/bench_models" "$n" "scenarios/$s.json"
}

echo "== engine"
eng=$("$build/bench_engine" 1000000 9 10000000)
echo "$eng"
row "engine / bare heap (M/M/1, same binary)" "$(sed -n 's/.*ratio ksim \/ bare: \([0-9.]*\).*/\1/p' <<< "$eng")" "x" ">=" 0.9
row "memory per pending event, 10^7 pending" "$(sed -n 's/.*pending: \([0-9.]*\) bytes.*/\1/p' <<< "$eng")" "B" "<=" 48

echo "== models, $big records, tracing off (the scenarios in turn, $rounds rounds)"
: > "$out/rates"
for _ in $(seq "$rounds"); do
  for s in "${scen[@]}"; do
    l=$(models_run "$big" "$s")
    echo "$l"
    echo "$s $(field "$l" M)" >> "$out/rates"
  done
done
for s in "${scen[@]}"; do
  row "$s: simulated records/s (best of $rounds)" "$(best "$out/rates" "$s" 2 high)" "M/s" ">=" 15
done

# scaling SCENARIO WHAT VAR FORMAT VALUE...: ns per engine event at each
# VALUE (VAR set to FORMAT with it), the values in turn for $rounds
# rounds, the lowest of each; a row each for its ratio to the first.
scaling() {
  local s=$1 what=$2 var=$3 fmt=$4 base='' first='' ns l v f=$out/scaling
  shift 4
  : > "$f"
  for _ in $(seq "$rounds"); do
    for v in "$@"; do
      # shellcheck disable=SC2059
      l=$(models_run "$mid" "$s" "$var=$(printf "$fmt" "$v")")
      echo "$v $(ns_event "$l") $(ns_batch "$l")" >> "$f"
    done
  done
  for v in "$@"; do
    ns=$(best "$f" "$v" 2 low)
    echo "$s, $v $what: $ns ns/event, $(best "$f" "$v" 3 low) ns/batch (lowest of $rounds)"
    [ -z "$base" ] && { base=$ns; first=$v; continue; }
    row "$s: ns/event, $v / $first $what" "$(awk -v a="$ns" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" "x" "<=" 2
  done
}

echo "== partitions: ns per engine event ($mid records)"
for s in "${scen[@]}"; do
  scaling "$s" partitions KSIM_BENCH_SET "topics.clicks.partitions=%s" 12 1200 12000 100000
  if [ "$s" = rr-vs-sticky ]; then
    # Round-robin's batches hold about 10 records at 12 partitions and one
    # from 1 200 on, so its rows above compare two mixes of events (a
    # record's arrival is a light event, a batch's request and response
    # heavy ones). From 1 200 partitions on the mix is the same, and what
    # remains is the cost of the topology's size alone.
    rr_same=$(awk -v a="$(best "$out/scaling" 100000 2 low)" -v b="$(best "$out/scaling" 1200 2 low)" \
                'BEGIN { printf "%.2f", a / b }')
  fi
done
row "rr-vs-sticky: ns/event, 100000 / 1200 (same mix)" "$rr_same" "x" "<=" 2

echo "== fixed cost of a 100 000-partition run (1 000 records)"
l=$(models_run 1000 rr-vs-sticky-sticky KSIM_BENCH_SET="topics.clicks.partitions=100000")
echo "$l"
fixed=$(awk '{ for (i = 1; i < NF; i++) { if ($i == "build") b = $(i + 1); if ($i == "summary") s = $(i + 1) } }
             END { printf "%.0f", (b + s) * 1000 }' <<< "$l")
row "100 000 partitions: build + summary" "$fixed" "ms" "<=" 100
row "100 000 partitions: peak memory" "$(awk '{ for (i = 2; i <= NF; i++) if ($i == "MiB") { print $(i - 1); exit } }' <<< "$l")" "MiB" "<=" 20

echo "== producers: ns per engine event ($mid records, the load split between them)"
scaling rr-vs-sticky-sticky producers KSIM_BENCH_PRODUCERS "%s" 1 10 100 1000
# The rows above split one load, so 1000 producers send batches of about
# one record and their events are heavier ones (requests, responses) than
# one producer's; against one producer carrying what each of the 1000
# does, the batches and the mix of events are alike and only the state
# held differs. That producer's run covers 1000 times the virtual time,
# so its metrics windows are made 1000 times longer too (100 s), to keep
# their share of the events the same.
: > "$out/alike"
for _ in $(seq "$rounds"); do
  l=$(models_run "$mid" rr-vs-sticky-sticky KSIM_BENCH_PRODUCERS=1000)
  echo "1000 $(ns_event "$l")" >> "$out/alike"
  l=$(models_run "$mid" rr-vs-sticky-sticky KSIM_BENCH_PRODUCERS=1 KSIM_BENCH_SHARE=1000 \
        KSIM_BENCH_SET="metrics.bucket.ms=100000")
  echo "1 $(ns_event "$l")" >> "$out/alike"
done
ns1000=$(best "$out/alike" 1000 2 low) ns_alike=$(best "$out/alike" 1 2 low)
echo "rr-vs-sticky-sticky, 1000 producers against 1 producer with the load of one of them" \
     "(in turn, lowest of $rounds): $ns1000 / $ns_alike ns/event"
row "rr-vs-sticky-sticky: ns/event, 1000 / 1, each's load" "$(awk -v a="$ns1000" -v b="$ns_alike" 'BEGIN { printf "%.2f", a / b }')" "x" "<=" 2
row "replicated run (acks=all, 3 replicas)" "n/a" "" ">=" "-"

echo "== tracing and trace reading ($tr records, rr-vs-sticky-sticky)"
cpu() { # seconds of CPU a command takes (user + sys); cpu_split: "user sys"
  local t0 t1 me=$BASHPID # this subshell: its children's times add up in it
  t0=$(awk '{ print $14 + $16, $15 + $17 }' "/proc/$me/stat")
  "$@" > /dev/null 2>&1 || true
  t1=$(awk '{ print $14 + $16, $15 + $17 }' "/proc/$me/stat")
  awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" -v sp="${CPU_SPLIT:-0}" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    if (sp) printf "%.3f %.3f\n", (y[1] - x[1]) / hz, (y[2] - x[2]) / hz
    else printf "%.3f", (y[1] - x[1] + y[2] - x[2]) / hz }'
}
set_recs=(--set "producers.p1.workload.records=$tr")
# CPU time is counted in clock ticks (10 ms), which the lowest of a few
# runs would round away: $rounds pairs of runs, the medians of each figure
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$out/cpu"
for _ in $(seq "$rounds"); do
  o=$(cpu "$build/ksim" run scenarios/rr-vs-sticky-sticky.json -q "${set_recs[@]}" \
        --trace-level summary --out "$out/off")
  rm -rf "$out/rec"
  r=$(CPU_SPLIT=1 cpu "$build/ksim" run scenarios/rr-vs-sticky-sticky.json \
        -q "${set_recs[@]}" --trace-level record --out "$out/rec")
  echo "$o $r" >> "$out/cpu"
done
off=$(awk '{ print $1 }' "$out/cpu" | med)
on_user=$(awk '{ print $2 }' "$out/cpu" | med)
on_sys=$(awk '{ print $3 }' "$out/cpu" | med)
on=$(awk -v u="$on_user" -v s="$on_sys" 'BEGIN { printf "%.3f", u + s }')
echo "untraced $off s, record-level $on s of CPU ($on_user s user, $on_sys s in the kernel)"
row "record-level tracing / untraced (CPU)" "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" "x" "<=" 2
# where it goes: the writer's own work, and the kernel's writing of the file
row "... of which the writer (user CPU - untraced) / untraced" "$(awk -v a="$on_user" -v b="$off" 'BEGIN { printf "%.2f", (b > 0 ? (a - b) / b : 0) }')" "x" "" "-"
row "... and the kernel's write(2) of the trace / untraced" "$(awk -v a="$on_sys" -v b="$off" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" "x" "" "-"
trace=$out/rec/trace.jsonl
mb=$(awk -v b="$(stat -c %s "$trace")" 'BEGIN { printf "%.1f", b / 1e6 }')
rate() { awk -v mb="$mb" -v s="$1" 'BEGIN { printf "%.0f", (s > 0 ? mb / s : 0) }'; }
py=$(cpu python3 -c 'import json, sys
for line in open(sys.argv[1]): json.loads(line)' "$trace")
# a window past the end: every line is read and followed, nothing drawn
ex=$(cpu "$build/ksim" explain "$trace" --from 999999999)
rp=$(cpu "$build/ksim" report "$out/rec" -o "$out/report")
echo "trace $mb MB: python json $py s, explain $ex s, report $rp s"
row "python3 json.loads (reference)" "$(rate "$py")" "MB/s" ">=" 0
row "explain read rate / python's" "$(awk -v a="$py" -v b="$ex" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')" "x" ">=" 5
row "explain (window past the end): trace read rate" "$(rate "$ex")" "MB/s" ">=" 200
row "report: trace read rate (gnuplot included)" "$(rate "$rp")" "MB/s" ">=" 200
# a window of about 200 steps (400 lines) near the start and near the
# end, against the full read above (a window past the end), and with
# every line parsed (KSIM_EXPLAIN_READ_ALL=1). Reading stops at the
# first line past --to ([RESULT] is the state there): the window near
# the start reads little, the one near the end almost all of it
n=$(wc -l < "$trace")
win=$(awk -v n="$n" 'BEGIN { split(1000 " " 1400 " " (n - 1400) " " (n - 1000), at, " ")
                             for (i = 1; i <= 4; i++) want[at[i]] = i }
       (NR in want) { t[want[NR]] = substr($0, 6) + 0 }
       END { for (i = 1; i <= 4; i++) printf "%d.%06d ", t[i] / 1000000, t[i] % 1000000 }' "$trace")
read -r ws_from ws_to we_from we_to <<< "$win"
ws=$(cpu "$build/ksim" explain "$trace" --from "$ws_from" --to "$ws_to")
we=$(cpu "$build/ksim" explain "$trace" --from "$we_from" --to "$we_to")
ws_all=$(cpu env KSIM_EXPLAIN_READ_ALL=1 "$build/ksim" explain "$trace" --from "$ws_from" --to "$ws_to")
we_all=$(cpu env KSIM_EXPLAIN_READ_ALL=1 "$build/ksim" explain "$trace" --from "$we_from" --to "$we_to")
echo "explain 200-step window: near the start $ws s (every line parsed: $ws_all s)," \
     "near the end $we s ($we_all s); full read $ex s"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
row "explain 200-step window near the start / full read" "$(ratio "$ws" "$ex")" "x" "<=" 0.1
row "explain 200-step window near the end / full read" "$(ratio "$we" "$ex")" "x" "<=" 1.1

echo
printf '%-52s %10s %-10s %3s %-8s %s\n' "what" "figure" "unit" "" "target" "met"
cat "$rows"
