#!/bin/sh
# circles_check.sh SOURCE_DIR BUILD_DIR FOLDER... - no circle among the
# modules of a folder: for each FOLDER (relative to SOURCE_DIR, e.g.
# tools/explain, or models for all of models/ and its subfolders), the
# module graph has no cycle, read two ways:
#   by includes  a module is a .c/.h pair (or a lone .c or .h), named by its
#                path without the extension (tools/explain/state); A -> B when
#                A.c or A.h includes B.h
#   by symbols   A -> B when the object file of A.c (as CMake builds it,
#                BUILD_DIR/CMakeFiles/<target>.dir/FOLDER/.../A.c.o) uses a
#                symbol the object file of B.c defines (nm)
# Only edges between two modules of the same FOLDER count. Prints, per
# folder and way, every strongly connected component of more than one
# module (every circle runs inside one): its members, the edges inside it
# with what makes each (the include, or up to three symbols), and the
# shortest circle through each member. Fails (exit 1) if there is a circle;
# exit 2 on bad arguments or when a folder's object files are missing.
# Needs nm (binutils; it reads the LTO objects of optimised builds too).
set -u
[ $# -ge 3 ] || { echo "usage: $0 SOURCE_DIR BUILD_DIR FOLDER..." >&2; exit 2; }
src=$1 build=$2
shift 2
cd "$src" || exit 2
build=$(cd "$build" && pwd) || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
NM=${NM:-nm}

# The edges by includes of folder $1: "A B why", one a line.
include_edges() {
  find "$1" -name '*.[ch]' | sort | while read -r f; do
    from=${f%.*}
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
      while read -r inc; do
        if [ -f "$inc" ]; then to=$inc
        elif [ -f "$(dirname "$f")/$inc" ]; then to=$(dirname "$f")/$inc
        else continue
        fi
        case $to in "$1"/*.h) ;; *) continue ;; esac
        to=${to%.h}
        [ "$to" = "$from" ] || echo "$from $to $(basename "$f") includes $(basename "$to").h"
      done
  done
}

# The edges by symbols of folder $1: "A B sym1, sym2, sym3 (+N)".
symbol_edges() {
  : > "$tmp/syms"
  for d in "$build"/CMakeFiles/*.dir/"$1"; do
    [ -d "$d" ] && find "$d" -name '*.c.o'
  done | sort > "$tmp/objs"
  if [ ! -s "$tmp/objs" ]; then
    echo "circles_check: no object files of $1/ under $build (build it first)" >&2
    return 2
  fi
  while read -r o; do
    m=${o#*/CMakeFiles/*.dir/}
    m=${m%.c.o}
    [ -f "$m.c" ] || continue # an object left behind by a source since removed
    "$NM" -P "$o" > "$tmp/nm" 2>&1 || { cat "$tmp/nm" >&2; return 2; }
    if grep -q '__gnu_lto_' "$tmp/nm"; then
      echo "circles_check: $NM reads $o without its LTO plugin: try NM=gcc-nm" >&2
      return 2
    fi
    awk -v m="$m" '
      $2 == "U" { print "U", m, $1 }
      $2 ~ /^[A-TV-Z]$/ { print "D", m, $1 }' "$tmp/nm" >> "$tmp/syms"
  done < "$tmp/objs"
  sort -u "$tmp/syms" | awk '
    $1 == "D" { if (!($3 in def)) def[$3] = $2; next }
    { use[++n] = $2 SUBSEP $3 }
    END {
      for (i = 1; i <= n; i++) {
        split(use[i], u, SUBSEP)
        if (!(u[2] in def) || def[u[2]] == u[1]) continue
        e = u[1] " " def[u[2]]
        cnt[e]++
        if (cnt[e] <= 3) why[e] = (cnt[e] == 1 ? "" : why[e] ", ") u[2]
      }
      for (e in cnt) print e, why[e] (cnt[e] > 3 ? " (+" cnt[e] - 3 ")" : "")
    }' | sort
}

# Reads "A B why" edges; prints the components of more than one module and
# the shortest circle through each member; exits 1 if there is one.
report_circles() {
  sort -u | awk -v what="$1" '
    function strong(v,   i, n, w, list, k) {
      idx[v] = low[v] = ++counter
      stack[++sp] = v; on[v] = 1
      n = split(adj[v], list, " ")
      for (i = 1; i <= n; i++) {
        w = list[i]
        if (!(w in idx)) { strong(w); if (low[w] < low[v]) low[v] = low[w] }
        else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
      }
      if (low[v] != idx[v]) return
      k = 0
      do { w = stack[sp--]; on[w] = 0; scc[w] = ncomp + 1; k++ } while (w != v)
      if (k > 1) { ncomp++; size[ncomp] = k }
      else delete scc[v]
    }
    # The shortest circle from m back to m inside its component (BFS).
    function circle(m,   head, tail, q, prev, seen, v, i, n, list, w, path) {
      head = tail = 1; q[1] = m
      while (head <= tail) {
        v = q[head++]
        n = split(adj[v], list, " ")
        for (i = 1; i <= n; i++) {
          w = list[i]
          if (scc[w] != scc[m]) continue
          if (w == m) {
            path = m
            for (; v != m; v = prev[v]) path = v " -> " path
            return m " -> " path
          }
          if (!(w in seen)) { seen[w] = 1; prev[w] = v; q[++tail] = w }
        }
      }
      return ""
    }
    {
      w = $3; for (i = 4; i <= NF; i++) w = w " " $i
      if (($1, $2) in why) { why[$1, $2] = why[$1, $2] "; " w; next }
      adj[$1] = adj[$1] (adj[$1] == "" ? "" : " ") $2
      why[$1, $2] = w
      node[$1] = node[$2] = 1; nedges++
    }
    END {
      nn = 0
      for (v in node) order[++nn] = v
      for (i = 2; i <= nn; i++)  # insertion sort: a fixed order
        for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
          t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
        }
      for (i = 1; i <= nn; i++) if (!(order[i] in idx)) strong(order[i])
      if (ncomp == 0) { printf "  %s: no circle (%d edges)\n", what, nedges; exit 0 }
      printf "  %s: %d strongly connected component(s) with circles\n", what, ncomp
      for (c = 1; c <= ncomp; c++) {
        printf "    component %d (%d modules):", c, size[c]
        for (i = 1; i <= nn; i++) if (scc[order[i]] == c) printf " %s", order[i]
        printf "\n"
        for (i = 1; i <= nn; i++) {
          v = order[i]; if (scc[v] != c) continue
          n = split(adj[v], list, " ")
          for (j = 1; j <= n; j++)
            if (scc[list[j]] == c) printf "      %s -> %s: %s\n", v, list[j], why[v, list[j]]
        }
        for (i = 1; i <= nn; i++) {
          v = order[i]; if (scc[v] != c) continue
          # the circle, turned to start at its smallest module, once
          nh = split(circle(v), hops, " -> ") - 1
          s = 1
          for (h = 2; h <= nh; h++) if (hops[h] < hops[s]) s = h
          p = hops[s]
          for (h = 1; h <= nh; h++) p = p " -> " hops[(s + h - 1) % nh + 1]
          if (!(p in listed)) { listed[p] = 1; printf "      circle: %s\n", p }
        }
      }
      exit 1
    }'
}

status=0
for folder in "$@"; do
  folder=${folder%/}
  [ -d "$folder" ] || { echo "circles_check: no folder $src/$folder" >&2; exit 2; }
  modules=$(find "$folder" -name '*.[ch]' | sed 's/\.[ch]$//' | sort -u | wc -l)
  echo "circles_check: $folder/ ($modules modules)"
  include_edges "$folder" > "$tmp/inc" || exit 2
  report_circles "by includes" < "$tmp/inc" || status=1
  symbol_edges "$folder" > "$tmp/sym" || exit 2
  report_circles "by symbols" < "$tmp/sym" || status=1
done
exit $status
