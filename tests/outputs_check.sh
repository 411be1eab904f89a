#!/bin/sh
# outputs_check.sh KSIM SCENARIOS WORKDIR - what ksim writes is whole or
# absent, as the command line sees it:
#  - every command that prints to standard output exits 2 when it cannot
#    (a full disk: /dev/full), naming standard output and the OS error;
#  - a run whose trace or summary cannot be written (a full device, a file
#    size limit reached mid-trace, a directory that cannot be made) exits 2
#    naming the file and the OS error, and leaves neither file, no
#    temporary and no directory it created;
#  - --trace and --summary naming one file is a usage error;
#  - runs into one --out at the same time leave a trace and a summary of
#    the same run.
set -u
ksim=$1 scen=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_rc RC MESSAGE-PATTERN CMD...: exit status and a line of stderr
expect_rc() {
  want=$1 pat=$2
  shift 2
  "$@" > "$work/out" 2> "$work/err"
  rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, expected $want: $(cat "$work/err")"
  grep -q -- "$pat" "$work/err" || fail "$*: stderr lacks '$pat': $(cat "$work/err")"
}

# expect_rc_stdout_full MESSAGE-PATTERN CMD...: same, standard output on /dev/full
expect_full() {
  pat=$1
  shift
  "$@" > /dev/full 2> "$work/err"
  rc=$?
  [ "$rc" = 2 ] || fail "$* > /dev/full exited $rc, expected 2"
  grep -q -- "$pat" "$work/err" || fail "$* > /dev/full: stderr lacks '$pat': $(cat "$work/err")"
}

full="standard output: write failed: No space left on device"
expect_full "$full" "$ksim" defaults
expect_full "$full" "$ksim" --help
expect_full "$full" "$ksim" help run
expect_full "$full" "$ksim" --version
expect_full "$full" "$ksim" partition --partitions 3 a b
expect_full "$full" "$ksim" validate "$scen/hello.json"
expect_full "$full" "$ksim" validate --resolved "$scen/hello.json"
expect_full "$full" "$ksim" check --tap "$scen/hello.json"
expect_full "$full" "$ksim" check "$scen/hello.json"
expect_full "standard output: write failed" "$ksim" check --junit - "$scen/hello.json"
expect_full "standard output: write failed" "$ksim" run "$scen/hello.json" --trace - -q --out "$work/std"
expect_full "standard output: write failed" "$ksim" run "$scen/hello.json" --summary - -q --out "$work/std"
expect_full "$full" "$ksim" run "$scen/hello.json" --out "$work/std2"
[ -e "$work/std" ] && fail "a run whose standard output failed left $work/std"

# a trace or summary that cannot be written
expect_rc 2 "/dev/full: write failed: No space left on device" \
  "$ksim" run "$scen/hello.json" -q --out "$work/a/b" --trace /dev/full
[ -e "$work/a" ] && fail "a failed run left the directory it created ($work/a)"
expect_rc 2 "/dev/full: write failed: No space left on device" \
  "$ksim" run "$scen/hello.json" -q --out "$work/a/b" --summary /dev/full
[ -e "$work/a" ] && fail "a failed run left the directory it created ($work/a)"
: > "$work/plainfile"
expect_rc 2 "cannot create directory .*plainfile/x: Not a directory" \
  "$ksim" run "$scen/hello.json" -q --out "$work/plainfile/x"
# a file size limit reached in the middle of the trace (as a full disk would)
( ulimit -f 8 && trap '' XFSZ && exec "$ksim" run "$scen/rr-vs-sticky.json" -q \
    --out "$work/big/run" ) 2> "$work/err"
rc=$?
[ "$rc" = 2 ] || fail "a trace over the file size limit exited $rc, expected 2"
grep -q "big/run/trace.jsonl: write failed: File too large" "$work/err" ||
  fail "file size limit: stderr lacks the file and the OS error: $(cat "$work/err")"
[ -e "$work/big" ] && fail "a failed run left $(find "$work/big")"
# an older pair stays whole when a newer run fails
"$ksim" run "$scen/rr-vs-sticky.json" -q --out "$work/keep" || fail "run into $work/keep"
cp "$work/keep/trace.jsonl" "$work/keep.trace"
( ulimit -f 8 && trap '' XFSZ && exec "$ksim" run "$scen/rr-vs-sticky.json" -q --seed 9 \
    --out "$work/keep" ) 2> /dev/null
cmp -s "$work/keep/trace.jsonl" "$work/keep.trace" || fail "a failed run replaced an older trace"
[ -e "$work/keep/summary.json" ] || fail "a failed run removed an older summary"
[ "$(ls -A "$work/keep" | wc -l)" = 2 ] || fail "a failed run left files: $(ls -A "$work/keep")"

# one file for both
expect_rc 2 "the trace and the summary would be one file" \
  "$ksim" run "$scen/hello.json" -q --trace "$work/same.json" --summary "$work/./same.json"
expect_rc 2 "the trace and the summary would be one file" \
  "$ksim" run "$scen/hello.json" -q --out "$work/d" --trace "$work/d/summary.json"
: > "$work/hard1"
ln "$work/hard1" "$work/hard2"
expect_rc 2 "the trace and the summary would be one file" \
  "$ksim" run "$scen/hello.json" -q --trace "$work/hard1" --summary "$work/hard2"

# a report that cannot be written whole removes the directories it made
"$ksim" run "$scen/hello.json" -q --out "$work/rep-run" --trace-level record || fail "run for report"
( ulimit -f 2 && trap '' XFSZ && exec "$ksim" report "$work/rep-run" -o "$work/rep/x" ) \
  2> "$work/err"
rc=$?
[ "$rc" = 2 ] || fail "a report over the file size limit exited $rc, expected 2"
grep -q "write failed: File too large" "$work/err" || fail "report: $(cat "$work/err")"
[ -e "$work/rep" ] && fail "a failed report left $(find "$work/rep")"
mkdir -p "$work/badrun"
echo '{"t":0,"ev":"end"}' > "$work/badrun/trace.jsonl"
expect_rc 2 "not a ksim trace" "$ksim" report "$work/rep-run" "$work/badrun" -o "$work/rep2"
[ -e "$work/rep2" ] && fail "a report of an unreadable run left $(find "$work/rep2")"
mkdir "$work/rep3"
expect_rc 2 "not a ksim trace" "$ksim" report "$work/badrun" -o "$work/rep3"
[ -d "$work/rep3" ] || fail "a failed report removed a directory it had not made"

# runs into one --out at once: each summary beside its own run's trace
i=0
while [ $i -lt 12 ]; do
  "$ksim" run "$scen/poisson-jitter.json" -q --seed $((i * 2 + 1)) --out "$work/race" &
  "$ksim" run "$scen/poisson-jitter.json" -q --seed $((i * 2 + 2)) --out "$work/race" &
  wait
  ts=$(head -1 "$work/race/trace.jsonl" | sed 's/.*"seed":\([0-9]*\).*/\1/')
  ss=$(grep -m1 '"seed"' "$work/race/summary.json" | sed 's/[^0-9]//g')
  [ "$ts" = "$ss" ] || fail "concurrent runs: a trace of seed $ts beside a summary of seed $ss"
  [ "$(ls -A "$work/race" | wc -l)" = 2 ] || fail "concurrent runs left: $(ls -A "$work/race")"
  i=$((i + 1))
done

rm -rf "$work"
[ $fails = 0 ] && echo "outputs: all checks passed"
exit $((fails > 0))
