#!/usr/bin/env bash
# fuzz.sh - builds the libFuzzer harnesses of tests/fuzz/ (clang,
# -DKSIM_FUZZ=ON, in their own build directory) and fuzzes each one in
# turn, one process at a time, for SECONDS. See tests/fuzz/README.md.
#
#   tools/fuzz.sh SECONDS [HARNESS...]     e.g. tools/fuzz.sh 60, tools/fuzz.sh 600 fuzz_run
#
# Seeds (scenarios/*.json, traces ksim writes) and dictionaries are
# generated into the build directory on every run; the corpus stays there
# too, so a later run continues from it. Exit status: 0 when no harness
# found anything, 1 on a crash, leak, timeout or out-of-memory (the
# reproducer's path and the commands to replay and minimise it are
# printed), 2 on bad usage or a failed build.
#
# Environment: KSIM_FUZZ_BUILD (build directory, default build-fuzz),
# CC (default clang, else clang-14), FUZZ_TIMEOUT (seconds per input,
# default 10), FUZZ_RSS_MB (memory limit, default 2048).
set -euo pipefail
cd "$(dirname "$0")/.."

all=(fuzz_scenario fuzz_run fuzz_trace fuzz_explain_report)
usage() {
  echo "usage: tools/fuzz.sh SECONDS [HARNESS...]   (harnesses: ${all[*]})" >&2
  exit 2
}
[ $# -ge 1 ] || usage
secs=$1
shift
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || usage
harnesses=()
for h in "${all[@]}"; do
  [ -f "tests/fuzz/$h.c" ] && harnesses+=("$h")
done
if [ $# -gt 0 ]; then
  for h in "$@"; do
    [[ " ${harnesses[*]} " == *" $h "* ]] || { echo "fuzz.sh: no harness '$h'" >&2; usage; }
  done
  harnesses=("$@")
fi

build=${KSIM_FUZZ_BUILD:-build-fuzz}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}
cc=${CC:-}
if [ -z "$cc" ]; then
  if command -v clang >/dev/null 2>&1; then cc=clang; else cc=clang-14; fi
fi
command -v "$cc" >/dev/null 2>&1 || {
  echo "fuzz.sh: $cc not found: libFuzzer needs clang (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
}
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
  > "$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2> "$probe/err"; then
  cat "$probe/err" >&2
  echo "fuzz.sh: $cc cannot link -fsanitize=fuzzer (Debian: apt-get install libclang-rt-14-dev)" >&2
  exit 2
fi

echo "== build ($cc, -DKSIM_FUZZ=ON, $build)"
mkdir -p "$build"
# Optimised, but with assertions: the models' assert_*_invariants run
# at every transition, so a fuzzed run that breaks one is a crash.
cmake -S . -B "$build" -DCMAKE_C_COMPILER="$cc" -DKSIM_FUZZ=ON -DKSIM_TESTS=OFF \
      -DKSIM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" > "$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  exit 2
}
cmake --build "$build" -j2 --target ksim_bin "${harnesses[@]}" > /dev/null || exit 2

work=$build/fuzz
bin=$build/tests/fuzz
ksim=$build/ksim

# Quoted names from documentation and scenarios, as dictionary lines.
quoted_names() {
  grep -ohE '"[A-Za-z0-9_.:-]{1,40}"' "$@" | sort -u | sed 's/"/\\"/g; s/.*/"&"/'
}

# Seeds for the scenario harnesses: every scenario, and a few with
# --set lines in front (tests/fuzz/fuzz_input.h).
scenario_seeds() {
  local dir=$1
  cp scenarios/*.json "$dir/"
  local i=0
  for o in 'producers.0.config.acks=0' 'producers.0.config.enable.idempotence=true' \
           'producers.0.workload.records=3' 'faults=[{"type": "drop.response", "request": 1}]' \
           'network.latency.ms=2.5' 'brokers.count=3' 'kafka.version=2.8'; do
    for s in scenarios/hello.json scenarios/seed-idempotent.json scenarios/transaction-abort.json; do
      { printf '%s\n' "$o"; cat "$s"; } > "$dir/set-$i.json"
      i=$((i + 1))
    done
  done
}

# Seeds for the trace harness: the first lines of the traces of the small
# scenarios, at the record and debug levels (short inputs run faster),
# and one whole trace.
trace_seeds() {
  local dir=$1 runs=$work/runs
  for s in hello seed-round-robin seed-idempotent seed-at-least-once seed-transaction-commit \
           transaction-abort seed-zombie-fencing consume-transform-produce delayed-produce-kip890; do
    for l in record debug; do
      "$ksim" run "scenarios/$s.json" --quiet --trace-level "$l" --out "$runs/$s-$l" \
        > /dev/null 2>&1 || true
      [ -f "$runs/$s-$l/trace.jsonl" ] && head -n 40 "$runs/$s-$l/trace.jsonl" > "$dir/$s-$l.jsonl"
    done
  done
  cp "$runs/hello-record/trace.jsonl" "$dir/hello-record-whole.jsonl"
}

prepare() {
  local h=$1 seeds=$work/seeds/$h
  rm -rf "$seeds"
  mkdir -p "$seeds" "$work/corpus/$h" "$work/artifacts/$h" "$work/logs"
  case $h in
    fuzz_trace | fuzz_explain_report)
      trace_seeds "$seeds"
      { cat tests/fuzz/trace.dict; quoted_names docs/trace.md; } > "$work/$h.dict" ;;
    *)
      scenario_seeds "$seeds"
      { cat tests/fuzz/scenario.dict; quoted_names docs/scenario.md scenarios/*.json
        "$ksim" defaults | sed -n 's/^  \([a-z][a-z0-9.]*\) .*/"\\"\1\\""/p'; } > "$work/$h.dict" ;;
  esac
}

# libFuzzer only ever adds to a corpus, and its first pass over the stored
# corpus is not bounded by SECONDS: once it holds more than 2000 inputs,
# it is merged down to the ones that add coverage before fuzzing.
shrink_corpus() {
  local h=$1 corpus=$work/corpus/$1
  [ "$(ls "$corpus" | wc -l)" -gt 2000 ] || return 0
  echo "== $h: merging the corpus ($(ls "$corpus" | wc -l) inputs)"
  rm -rf "$corpus.merged"
  mkdir -p "$corpus.merged"
  if "$bin/$h" -merge=1 -timeout="$timeout" -rss_limit_mb="$rss" "$corpus.merged" "$corpus" \
       > "$work/logs/$h.merge.log" 2>&1; then
    rm -rf "$corpus"
    mv "$corpus.merged" "$corpus"
  else
    echo "$h: merge failed (see $work/logs/$h.merge.log); keeping the corpus" >&2
    rm -rf "$corpus.merged"
  fi
}

# The newest file libFuzzer left in a harness's artifact directory.
newest_artifact() {
  ls -t "$work/artifacts/$1"/* 2> /dev/null | head -n 1 || true
}

status=0
declare -A execs cov ft ran verdict
for h in "${harnesses[@]}"; do
  prepare "$h"
  shrink_corpus "$h"
  log=$work/logs/$h.log
  echo "== $h: $secs s (log $log)"
  before=$(newest_artifact "$h")
  start=$(date +%s)
  rc=0
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$bin/$h" -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb="$rss" \
    -malloc_limit_mb="$rss" -detect_leaks=1 -print_final_stats=1 -dict="$work/$h.dict" \
    -artifact_prefix="$work/artifacts/$h/" "$work/corpus/$h" "$work/seeds/$h" \
    "tests/fuzz/regress/$h" > "$log" 2>&1 || rc=$?
  ran[$h]=$(( $(date +%s) - start ))
  execs[$h]=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  last=$(grep -E 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  cov[$h]=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft[$h]=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<< "$last")
  verdict[$h]=ok
  if [ "$rc" -ne 0 ]; then
    status=1
    art=$(newest_artifact "$h")
    [ "$art" = "$before" ] && art=""
    verdict[$h]="FAILED (exit $rc)"
    grep -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|Assertion|ERROR: libFuzzer' "$log" | head -n 5 >&2 || true
    if [ -n "$art" ]; then
      verdict[$h]="FAILED: $art"
      echo "$h: reproducer: $art" >&2
      echo "  replay:   $bin/$h $art" >&2
      echo "  minimise: $bin/$h -minimize_crash=1 -runs=100000 -exact_artifact_path=$art.min $art" >&2
      echo "  then keep it: cp $art.min tests/fuzz/regress/$h/WHAT-IT-TRIGGERS" >&2
    else
      echo "$h: failed without a reproducer; see $log" >&2
    fi
  fi
done

echo "== fuzz summary ($secs s per harness)"
printf '%-20s %12s %8s %8s %6s  %s\n' harness executions cov ft secs result
for h in "${harnesses[@]}"; do
  printf '%-20s %12s %8s %8s %6s  %s\n' "$h" "${execs[$h]:--}" "${cov[$h]:--}" "${ft[$h]:--}" \
    "${ran[$h]}" "${verdict[$h]}"
done
exit $status
