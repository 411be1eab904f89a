#!/bin/sh
# browser_check.sh KSIM OUTDIR SCENARIODIR - renders report pages in
# headless Chromium and checks every chart on them: that its image loaded
# (the page records, once loaded, data-images="loaded/total" on its body
# and data-loaded="yes" on each image; see tools/report.c), and that it
# has data (every data file its script plots has rows, and its SVG holds
# the plotted series). The reports cover one record-level run with a
# fault, two runs alike, and runs of different scale with a fault window,
# transactions and consumers. Exits 77 (ctest: skipped) when Chromium is
# missing.
set -eu
ksim=$1 out=$2 scen=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "browser_check: no chromium: skipped (tools/deps.sh --ci installs it)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
"$ksim" run "$scen/seed-at-least-once.json" --trace-level record --quiet --out "$out/alo"
"$ksim" run "$scen/rr-vs-sticky.json" --quiet --out "$out/rr"
"$ksim" run "$scen/rr-vs-sticky-sticky.json" --quiet --out "$out/sticky"
"$ksim" run "$scen/seed-zombie-fencing.json" --trace-level record --quiet --out "$out/zombie"
"$ksim" run "$scen/transaction-abort.json" --quiet --out "$out/abort"

# has_data DIR NAME: chart NAME of the report in DIR has data.
has_data() {
  gp="$1/$2.gp" svg="$1/$2.svg"
  files=$(grep -o "'data/[^']*\.dat'" "$gp" | tr -d "'" | sort -u)
  [ -n "$files" ] || { echo "browser_check: $gp plots no data file" >&2; return 1; }
  for f in $files; do
    rows=$(grep -vc '^#' "$1/$f" || true)
    [ "$rows" -gt 0 ] || { echo "browser_check: $1/$f (of $2) has no rows" >&2; return 1; }
  done
  grep -q 'id="gnuplot_plot_1' "$svg" \
    || { echo "browser_check: $svg draws no series" >&2; return 1; }
}

for set in "alo" "rr sticky" "rr zombie abort"; do
  name=$(echo "$set" | tr ' ' '-')
  runs=""
  for r in $set; do runs="$runs $out/$r"; done
  # shellcheck disable=SC2086
  "$ksim" report $runs -o "$out/report-$name" >/dev/null
  dir="$out/report-$name"
  page="$dir/index.html"
  total=$(grep -o '<img ' "$page" | wc -l)
  dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
          --virtual-time-budget=10000 --dump-dom "file://$(cd "$dir" && pwd)/index.html" 2>/dev/null)
  got=$(printf '%s' "$dom" | grep -o 'data-images="[0-9]*/[0-9]*"' | head -1)
  echo "browser_check: $page: $got ($total images in the page)"
  if [ "$got" != "data-images=\"$total/$total\"" ] || [ "$total" -eq 0 ]; then
    echo "browser_check: not every image of $page loaded" >&2
    exit 1
  fi
  for src in $(printf '%s' "$page" | xargs grep -o '<img src="[^"]*"' | sed 's/.*src="//; s/"$//'); do
    chart=${src%.*}
    # the image of this chart loaded, as the browser saw it
    printf '%s' "$dom" | grep -q "<img src=\"$src\"[^>]*data-loaded=\"yes\"" \
      || { echo "browser_check: $dir/$src did not load" >&2; exit 1; }
    has_data "$dir" "$chart" || exit 1
    echo "browser_check:   $chart: loaded, has data"
  done
done
