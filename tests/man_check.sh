#!/bin/sh
# man_check.sh KSIM MANPAGE - the manual page cannot drift from the
# commands: it has a section for every command `ksim --help` lists, and
# in it every long option that command's --help lists in its options
# block (but --help).
set -eu
ksim=$1 man=$2
fail=0
cmds=$("$ksim" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" && $1 ~ /^[a-z]+$/ {print $1}' | sort -u)
[ -n "$cmds" ] || { echo "man_check: no commands in ksim --help" >&2; exit 1; }
for c in $cmds; do
  # the command's section: from its .SS line to the next .SS or .SH
  section=$(awk -v c="$c" '/^\.S[SH] /{on = ($1 == ".SS" && $2 == c)} on' "$man")
  if [ -z "$section" ]; then
    echo "man_check: $man has no section for ksim $c" >&2
    fail=1
    continue
  fi
  # the options: the lines of the options block that start with one
  opts=$("$ksim" "$c" --help | sed -n '/^options:/,/^$/p' | grep -E '^ +-' \
           | sed 's/  [A-Za-z(].*$//' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
  for o in $opts; do
    [ "$o" = "--help" ] && continue
    esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
    if ! printf '%s\n' "$section" | grep -q -- "$esc"; then
      echo "man_check: ksim $c: $o is not in its section of $man" >&2
      fail=1
    fi
  done
done
[ $fail -eq 0 ] && echo "man_check: $man names every command and option ($(echo $cmds | wc -w) commands)"
exit $fail
