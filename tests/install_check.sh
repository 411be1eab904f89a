#!/bin/sh
# install_check.sh BUILD_DIR SOURCE_DIR WORK - `cmake --install` into a
# temporary prefix, then the installed ksim used as a user would, from a
# directory outside the source tree: it runs a scenario and draws its
# report with the installed templates (share/ksim/reports, found from
# the executable: a line added to the installed common.gp shows up in the
# scripts), and the manual page is there.
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work/elsewhere"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/ksim share/ksim/reports/common.gp share/ksim/reports/throughput.gp \
         share/man/man1/ksim.1; do
  [ -e "$prefix/$f" ] || { echo "install_check: $prefix/$f was not installed" >&2; exit 1; }
done
echo "# the installed templates" >> "$prefix/share/ksim/reports/common.gp"
cd "$work/elsewhere"
env -u KSIM_REPORTS_DIR "$prefix/bin/ksim" run "$src/scenarios/seed-at-least-once.json" \
  --quiet --trace-level record --out run
env -u KSIM_REPORTS_DIR "$prefix/bin/ksim" report run -o report >/dev/null
for f in report/index.html report/throughput.png report/latency-percentiles.svg; do
  [ -s "$f" ] || { echo "install_check: the installed ksim report wrote no $f" >&2; exit 1; }
done
grep -q "# the installed templates" report/throughput.gp \
  || { echo "install_check: the report did not use the installed templates" >&2; exit 1; }
"$prefix/bin/ksim" help report >/dev/null
echo "install_check: installed into $prefix; run and report work from $work/elsewhere"
