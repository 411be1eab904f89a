#!/bin/sh
# junit_check.sh KSIM SCENARIODIR OUTDIR XSD - validates what `ksim check
# --junit` writes against XSD (tests/junit.xsd, the rules of the xunit
# plugin's strict JUnit schema) with xmllint: the report of every scenario
# under SCENARIODIR, and one that holds each outcome (ok, failure,
# skipped, error). First, reports that break one rule each must be
# rejected, so that the schema is known to check what it says it does.
# Without xmllint: exits 77 (ctest: skipped), except under CI (CI=true),
# where it fails, since tools/deps.sh installs it.
set -eu
ksim=$1 scen=$2 out=$3 xsd=$4
if ! command -v xmllint > /dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "junit_check: no xmllint under CI (tools/deps.sh installs libxml2-utils)" >&2
    exit 1
  fi
  echo "junit_check: no xmllint: skipped (tools/deps.sh installs libxml2-utils)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out/mixed"

valid() {
  xmllint --noout --schema "$xsd" "$1" > "$out/xmllint.log" 2>&1 ||
    { cat "$out/xmllint.log" >&2; echo "junit_check: $1 is not valid against $xsd" >&2; exit 1; }
}

# Each sample breaks one rule; the schema must reject it.
reject() {
  printf '<?xml version="1.0" encoding="UTF-8"?>\n%s\n' "$2" > "$out/bad.xml"
  if xmllint --noout --schema "$xsd" "$out/bad.xml" > /dev/null 2>&1; then
    echo "junit_check: the schema accepts $1: $2" >&2
    exit 1
  fi
}
case_ok='<testcase name="a" time="0.001"/>'
suite() { echo "<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\"$1>$2</testsuite></testsuites>"; }
printf '%s\n' "$(suite '' "$case_ok")" > "$out/good.xml"
valid "$out/good.xml"
reject "skipped on testsuites" \
  "<testsuites skipped=\"0\"><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\">$case_ok</testsuite></testsuites>"
reject "properties in testsuites" \
  "<testsuites><properties/><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\"/></testsuites>"
reject "file on testcase" "$(suite '' '<testcase name="a" file="a.json"/>')"
reject "properties in testcase" \
  "$(suite '' '<testcase name="a"><properties><property name="seed" value="1"/></properties></testcase>')"
reject "a testcase without name" "$(suite '' '<testcase time="0.001"/>')"
reject "a testsuite without tests" \
  '<testsuites><testsuite name="s" failures="0" errors="0"/></testsuites>'
reject "a time without three decimals" "$(suite '' '<testcase name="a" time="0"/>')"
reject "a negative time" "$(suite ' time="-1.000"' "$case_ok")"
reject "elements inside failure" "$(suite '' '<testcase name="a"><failure><b/></failure></testcase>')"

# The project's scenarios, as CI checks them.
"$ksim" check -q --junit "$out/scenarios.xml" "$scen"
valid "$out/scenarios.xml"

# Every outcome in one report: hello passes, a copy with an impossible
# expectation fails, one without expect block is skipped, a broken file
# is an error.
cp "$scen/hello.json" "$out/mixed/a-ok.json"
sed 's/"records.acked": 10/"records.acked": 11/' "$scen/hello.json" > "$out/mixed/b-fail.json"
cat > "$out/mixed/c-skip.json" <<'EOF'
{"scenario.format": 1, "name": "c-skip", "topics": [{"name": "t", "partitions": 1}],
 "producers": [{"id": "p1", "topic": "t", "workload": {"records": 1}}]}
EOF
echo '{"name": "d",}' > "$out/mixed/d-error.json"
rc=0
"$ksim" check -q --junit "$out/mixed.xml" "$out/mixed" --set 'description=<&>' > /dev/null || rc=$?
[ "$rc" = 1 ] || { echo "junit_check: check of $out/mixed exited $rc, expected 1" >&2; exit 1; }
for e in '<failure ' '<skipped ' '<error ' '<system-out>' 'skipped="1"'; do
  grep -q "$e" "$out/mixed.xml" ||
    { echo "junit_check: $out/mixed.xml has no $e" >&2; exit 1; }
done
valid "$out/mixed.xml"
echo "junit_check: the reports of $scen and of every outcome are valid against $xsd"
