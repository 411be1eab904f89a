#!/bin/sh
# layers_check.sh SOURCE_DIR - the layers include only downward:
#   sim/     includes only sim/ (and the generated version header)
#   models/  includes sim/ and models/
#   tools/   includes anything below, and within tools/ three levels:
#            the option parser and exit status (tools/options.h,
#            tools/status.h) include no other tools/ header; the commands
#            (everything else in tools/) never include the dispatcher
#            (tools/cli.h), which only tools/cli.c and tools/main.c do
# and sim/ never names a Kafka thing in an include; the nodes (models/
# producer, broker, consumer, net) never include the delivery checker
# (models/check/): they report to models/obs.h, the checker observes. A
# model's scenario section header (models/*/*_section.h) is vocabulary that
# models/scenario.h gathers: it includes only sim/, models/kafka/, other
# section headers, header-only config types (models/*/*_conf.h) and the
# partitioner list, never a model's running code.
# The nodes are actors (models/net/node.h): no node module (models/
# producer, broker, consumer, net, app) includes the world (models/
# world.h), which only world.c, world_run.c and the summary do; and a node
# kind includes no other node kind's headers (models/producer, broker,
# consumer each keep to themselves and models/net, models/kafka; only the
# application, models/app, holds a consumer and producers). A section
# reader (*_section.[ch]) is scenario vocabulary, not a node's running
# code: it may name another kind's section (a producer's topic reference).
# Prints each include that runs up a layer, and fails if there is one.
cd "$1" || exit 2
bad=$(grep -HnE '#include "[^"]*"' $(find sim -name '*.[ch]') |
      grep -vE '#include "(sim/[^"]*|ks_version\.h|ziggurat_exp\.h)"')
bad2=$(grep -HnE '#include "tools/' $(find models -name '*.[ch]'))
bad3=$(grep -HnE '#include "tools/' tools/options.[ch] tools/status.[ch] |
       grep -vE ':#include "tools/(options|status)\.h"')
bad4=$(grep -HnE '#include "tools/cli\.h"' $(find tools -name '*.[ch]') |
       grep -vE '^tools/(cli|main)\.c:')
bad5=$(grep -HnE '#include "models/check/' $(find models/producer models/broker models/consumer models/net -name '*.[ch]'))
bad6=$(grep -HnE '#include "[^"]*"' $(find models -name '*_section.h') |
       grep -vE '#include "(sim/[^"]*|models/kafka/[^"]*|models/[a-z]+/[a-z_]+_(section|conf)\.h|models/producer/partitioner\.h)"')
bad7=$(grep -HnE '#include "models/world\.h"' $(find models -name '*.[ch]') |
       grep -vE '^models/(world|world_run|summary)\.c:')
bad8=$(for k in producer broker consumer net; do
         grep -HnE '#include "models/(producer|broker|consumer|app)/' $(find models/$k -name '*.[ch]') |
           grep -vE "#include \"models/$k/" |
           grep -vE '^[^:]*_section\.[ch]:[0-9]+:#include "models/[a-z]+/[a-z_]+_(section|conf)\.h"'
       done)
if [ -n "$bad$bad2$bad3$bad4$bad5$bad6$bad7$bad8" ]; then
  echo "includes that run up the layers (sim < models < tools: options, status < commands < cli; nodes report to models/obs.h, not to models/check/; section headers: sim/, models/kafka/, sections; no node includes the world or another node kind):"
  printf '%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n' "$bad" "$bad2" "$bad3" "$bad4" "$bad5" "$bad6" "$bad7" "$bad8" | sed '/^$/d'
  exit 1
fi
echo "layers: sim/ $(find sim -name '*.[ch]' | wc -l) files, models/ $(find models -name '*.[ch]' | wc -l) files, tools/ $(find tools -name '*.[ch]' | wc -l) files: every include runs downward"
