#!/bin/sh
# browser_check.sh KSIM OUTDIR SCENARIODIR - renders a report page in
# headless Chromium and checks that every image on it loaded. The page
# records, once loaded, data-images="loaded/total" on its body (see
# tools/report.c). Exits 77 (ctest: skipped) when Chromium is missing.
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
for set in "alo" "rr sticky"; do
  name=$(echo "$set" | tr ' ' '-')
  runs=""
  for r in $set; do runs="$runs $out/$r"; done
  # shellcheck disable=SC2086
  "$ksim" report $runs -o "$out/report-$name" >/dev/null
  page="$out/report-$name/index.html"
  total=$(grep -o '<img ' "$page" | wc -l)
  dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
          --virtual-time-budget=10000 --dump-dom "file://$(cd "$(dirname "$page")" && pwd)/index.html" 2>/dev/null)
  got=$(printf '%s' "$dom" | grep -o 'data-images="[0-9]*/[0-9]*"' | head -1)
  echo "browser_check: $page: $got ($total images in the page)"
  if [ "$got" != "data-images=\"$total/$total\"" ] || [ "$total" -eq 0 ]; then
    echo "browser_check: not every image of $page loaded" >&2
    exit 1
  fi
done
