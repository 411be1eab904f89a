#!/bin/sh
# layers_check.sh SOURCE_DIR - the layers include only downward:
#   sim/     includes only sim/ (and the generated version header)
#   models/  includes sim/ and models/
#   tools/   includes anything
# and sim/ never names a Kafka thing in an include. Prints each include that
# runs up a layer, and fails if there is one.
cd "$1" || exit 2
bad=$(grep -HnE '#include "[^"]*"' $(find sim -name '*.[ch]') |
      grep -vE '#include "(sim/[^"]*|ks_version\.h|ziggurat_exp\.h)"')
bad2=$(grep -HnE '#include "tools/' $(find models -name '*.[ch]'))
if [ -n "$bad$bad2" ]; then
  echo "includes that run up the layers (sim < models < tools):"
  printf '%s\n%s\n' "$bad" "$bad2" | sed '/^$/d'
  exit 1
fi
echo "layers: sim/ $(find sim -name '*.[ch]' | wc -l) files, models/ $(find models -name '*.[ch]' | wc -l) files: every include runs downward"
