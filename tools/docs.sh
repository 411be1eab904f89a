#!/usr/bin/env bash
# docs.sh - keeps the generated parts of docs/scenario.md and docs/trace.md
# true to the code, as tools/tutorial.sh does for the tutorial. A page holds
# directives in HTML comments, each followed by what it generates, up to
# "<!-- ksim: end -->":
#
#   <!-- ksim: defaults ARGS -->   what `ksim defaults ARGS` prints, as it is
#                                  (with --format markdown: the config tables)
#   <!-- ksim: console ARGS -->    a console block: `build/ksim ARGS` as typed
#                                  from the repository root, and what it
#                                  prints on standard output (standard error
#                                  is shown only when it fails); in a trace
#                                  header line, "resolved" and "derived"
#                                  are shortened to {...}
#
# ARGS are split at spaces (no quoting), and the commands run in a
# temporary directory holding a link to scenarios/, so that they write
# nothing into the repository.
#
# usage: tools/docs.sh --check [--ksim PATH] [FILE...]
#        tools/docs.sh --update [--ksim PATH] [FILE...]
# --check makes every generated part anew in a temporary file and compares:
# exit 1 (with the diff) when a page no longer matches what ksim prints.
# --update writes the pages. FILEs default to docs/scenario.md and
# docs/trace.md, PATH to build/ksim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode="" ksim="$root/build/ksim" pages=()
while [ $# -gt 0 ]; do
  case $1 in
    --check|--update) mode=${1#--} ;;
    --ksim) ksim=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "docs.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) pages+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
  esac
  shift
done
[ -n "$mode" ] || { echo "docs.sh: say --check or --update (see --help)" >&2; exit 2; }
[ -x "$ksim" ] || { echo "docs.sh: no ksim at $ksim (build first, or --ksim PATH)" >&2; exit 2; }
[ ${#pages[@]} -gt 0 ] || pages=("$root/docs/scenario.md" "$root/docs/trace.md")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root/scenarios" "$work/scenarios"

# Appends to $out what one directive generates; false when ksim failed.
generate() {
  local kind=$1
  shift
  case $kind in
    defaults)
      (cd "$work" && "$ksim" defaults "$@") >> "$out" 2> "$work/errors" ||
        { cat "$work/errors" >&2; return 1; } ;;
    console)
      echo '```console' >> "$out"
      echo "\$ build/ksim $*" >> "$out"
      (cd "$work" && "$ksim" "$@") > "$work/output" 2> "$work/errors" ||
        { cat "$work/errors" >&2; return 1; }
      sed -E '1s/^(\{"t":0,"ev":"header",.*"resolved":)\{.*\},"derived":\{.*\}\}$/\1{...},"derived":{...}}/' \
        "$work/output" >> "$out"
      echo '```' >> "$out" ;;
  esac
}

# Makes $page anew into $out; exit 1 on a command that fails or a
# directive left open.
render() {
  local skipping=0 lineno=0 line kind args
  : > "$out"
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
    [[ $line =~ ^\<!--\ ksim:\ (defaults|console)\ (.*)\ --\>$ ]] || continue
    kind=${BASH_REMATCH[1]}
    read -r -a args <<< "${BASH_REMATCH[2]}"
    skipping=1
    generate "$kind" "${args[@]}" ||
      { echo "docs.sh: $page:$lineno: ksim ${args[*]} failed" >&2; exit 1; }
  done < "$page"
  if [ $skipping = 1 ]; then
    echo "docs.sh: $page: a directive has no <!-- ksim: end -->" >&2
    exit 1
  fi
}

status=0
for page in "${pages[@]}"; do
  out="$work/page.md"
  render
  if ! grep -q '^<!-- ksim: \(defaults\|console\) ' "$page"; then
    echo "docs.sh: $page has no directive" >&2
    status=1
  elif [ "$mode" = update ]; then
    if ! cmp -s "$out" "$page"; then
      cp "$out" "$page.tmp" && mv "$page.tmp" "$page"
      echo "docs.sh: $page updated"
    fi
  elif ! diff -u "$page" "$out"; then
    echo "docs.sh: $page no longer matches what ksim prints: run tools/docs.sh --update" >&2
    status=1
  else
    echo "docs.sh: $page matches ksim"
  fi
done
exit $status
