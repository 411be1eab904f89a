#!/bin/sh
# config_readers_check.sh SOURCE_DIR KSIM - the "read by" column of `ksim
# defaults` (models/kafka/config.c's read_by) tells the truth: a config
# that it says no model reads is named (KS_PCFG_X, KS_BCFG_X) nowhere in
# models/ outside models/kafka/, and one it says a model reads is named
# there. The keys and their enum names come from models/kafka/config.h.
set -eu
src=$1 ksim=$2
status=0
for table in producer broker; do
  case $table in
    producer) macro=KS_PRODUCER_CONFIGS prefix=KS_PCFG_ ;;
    broker) macro=KS_BROKER_CONFIGS prefix=KS_BCFG_ ;;
  esac
  # "ENUM key" per line, from the X-macro list
  names=$(awk -v m="#define $macro(X)" 'index($0, m) == 1 { on = 1; next }
            on && !/\\$/ { print; on = 0 } on { print }' "$src/models/kafka/config.h" |
          sed -n 's/.*X(\([A-Z0-9_]*\), "\([^"]*\)").*/\1 \2/p')
  [ -n "$names" ] || { echo "config_readers_check: no $macro list in config.h" >&2; exit 2; }
  rows=$("$ksim" defaults --format markdown "$table")
  echo "$names" | { bad=0; while read -r enum key; do
    reader=$(printf '%s\n' "$rows" | awk -F ' \\| ' -v k="| \`$key\`" '$1 == k { print $4 }')
    if [ -z "$reader" ]; then
      echo "$table config $key: not in ksim defaults' table" >&2
      bad=1
      continue
    fi
    uses=$(cd "$src" && grep -rlw "$prefix$enum" models --include='*.c' --include='*.h' |
           grep -v '^models/kafka/' || true)
    if [ "$reader" = "–" ] && [ -n "$uses" ]; then
      echo "$table config $key: read by no model, says config.c, yet named in:" $uses >&2
      bad=1
    elif [ "$reader" != "–" ] && [ -z "$uses" ]; then
      echo "$table config $key: read by $reader, says config.c, yet named in no model" >&2
      bad=1
    fi
  done; exit $bad; } || status=1
done
[ $status = 0 ] && echo "config_readers_check: every config's read-by agrees with models/"
exit $status
