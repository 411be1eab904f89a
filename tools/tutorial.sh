#!/usr/bin/env bash
# tutorial.sh - keeps the command output and charts in docs/tutorial.md
# true to the code. The page holds directives in HTML comments, each
# followed by what it generates, up to "<!-- ksim: end -->":
#
#   <!-- ksim: run SCENARIO [ARGS] -->       `ksim run scenarios/SCENARIO.json
#                                              --trace-level record ARGS` and its
#                                              output
#   <!-- ksim: explain SCENARIO [ARGS] -->   `ksim explain ksim-out/SCENARIO/trace.jsonl
#                                              ARGS` and its output
#   <!-- ksim: chart NAME CHART SCENARIO... -->  the CHART of `ksim report` over
#                                              those runs, as docs/tutorial/NAME.svg
#
# usage: tools/tutorial.sh --check [--ksim PATH] [FILE]
#        tools/tutorial.sh --update [--ksim PATH] [FILE]
# --check rewrites the page in a temporary file and compares: exit 1 (with
# the diff) when the page no longer matches what ksim prints, or names a
# chart that is not there. --update writes the page and draws the charts
# (gnuplot needed). FILE defaults to docs/tutorial.md, PATH to build/ksim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode="" ksim="$root/build/ksim" page="$root/docs/tutorial.md"
while [ $# -gt 0 ]; do
  case $1 in
    --check|--update) mode=${1#--} ;;
    --ksim) ksim=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tutorial.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) page=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;;
  esac
  shift
done
[ -n "$mode" ] || { echo "tutorial.sh: say --check or --update (see --help)" >&2; exit 2; }
[ -x "$ksim" ] || { echo "tutorial.sh: no ksim at $ksim (build first, or --ksim PATH)" >&2; exit 2; }
imgdir="$(dirname "$page")/tutorial"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root/scenarios" "$work/scenarios"
mkdir -p "$work/ksim-out"

# Every scenario is run once, at record level, from $work so that the
# paths printed are the ones a reader types from the repository root.
declare -A ran
run_once() {
  local s=$1
  if [ -z "${ran[$s]:-}" ]; then
    (cd "$work" && "$ksim" run "scenarios/$s.json" --trace-level record --quiet \
                              --out "ksim-out/$s") \
      || { echo "tutorial.sh: ksim run scenarios/$s.json failed" >&2; exit 1; }
    ran[$s]=1
  fi
}

# Appends to the page a console block: the command as typed from the
# repository root, and what it printed.
console() {
  {
    echo '```console'
    echo "\$ build/ksim $*"
    (cd "$work" && "$ksim" "$@")
    echo '```'
  } >> "$out" || { echo "tutorial.sh: $page:$lineno: ksim $* failed" >&2; exit 1; }
}

# Reads the page, writes it to $work/page.md with every generated part
# made anew.
out="$work/page.md"
: > "$out"
skipping=0 lineno=0 status=0
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  if [ $skipping = 1 ]; then
    if [[ $line == "<!-- ksim: end -->" ]]; then
      skipping=0
      printf '%s\n' "$line" >> "$out"
    fi
    continue
  fi
  printf '%s\n' "$line" >> "$out"
  [[ $line =~ ^\<!--\ ksim:\ (run|explain|chart)\ (.*)\ --\>$ ]] || continue
  kind=${BASH_REMATCH[1]}
  read -r -a args <<< "${BASH_REMATCH[2]}"
  skipping=1
  case $kind in
    run)
      s=${args[0]}
      run_once "$s"
      console run "scenarios/$s.json" --trace-level record "${args[@]:1}"
      ;;
    explain)
      s=${args[0]}
      run_once "$s"
      console explain "ksim-out/$s/trace.jsonl" "${args[@]:1}"
      ;;
    chart)
      name=${args[0]} chart=${args[1]}
      runs=()
      for s in "${args[@]:2}"; do
        run_once "$s"
        runs+=("ksim-out/$s")
      done
      echo "![$chart of ${args[*]:2}](tutorial/$name.svg)" >> "$out"
      if [ "$mode" = update ]; then
        (cd "$work" && "$ksim" report "${runs[@]}" --format svg -o "report-$name" > /dev/null) \
          || { echo "tutorial.sh: $page:$lineno: ksim report failed" >&2; exit 1; }
        [ -f "$work/report-$name/$chart.svg" ] \
          || { echo "tutorial.sh: $page:$lineno: the report has no $chart chart" >&2; exit 1; }
        mkdir -p "$imgdir"
        cp "$work/report-$name/$chart.svg" "$imgdir/$name.svg"
      elif [ ! -f "$imgdir/$name.svg" ]; then
        echo "tutorial.sh: $page:$lineno: chart $imgdir/$name.svg is missing (run --update)" >&2
        status=1
      fi
      ;;
  esac
done < "$page"
if [ $skipping = 1 ]; then
  echo "tutorial.sh: $page: a directive has no <!-- ksim: end -->" >&2
  exit 1
fi

if [ "$mode" = update ]; then
  cp "$out" "$page.tmp" && mv "$page.tmp" "$page"
  echo "tutorial.sh: $page updated (${#ran[@]} scenarios)"
elif ! diff -u "$page" "$out"; then
  echo "tutorial.sh: $page no longer matches what ksim prints: run tools/tutorial.sh --update" >&2
  exit 1
elif [ $status = 0 ]; then
  echo "tutorial.sh: $page matches ksim (${#ran[@]} scenarios)"
fi
exit $status
