#!/usr/bin/env bash
# bench/peer.sh: pdbgen's zero-aware tables against clausecker/24puzzle's genpdb, the best
# open builder of them, side by side on this machine: the two tables of the 6-6-6-6z set
# (tiles 1,2,5,6,7,12 and 3,4,8,9,13,14 of the 24-puzzle, 181,008,000 entries each), and
# one table no committed digest knows (6,7,8,11,12,13), each pinned to one core
# (taskset -c 0) and on all cores, in runs that alternate which tool goes first, each
# build into a fresh directory. The values are checked to agree (bench/peercheck: entry
# counts, histograms, and random states looked up in both files). It prints one table of
# medians: wall seconds, CPU seconds and peak resident memory.
#
# It fetches and builds nothing of the other project: give it a genpdb built from
# clausecker/24puzzle (bmake CC=clang cmd/genpdb; Debian's clang, bmake, libzstd-dev and
# pkg-config). Go builds pdbgen from this checkout.
#
#   bench/peer.sh /path/to/genpdb [RUNS]     # RUNS: 3 by default
#
# About 3.5 minutes a run on a 2-core machine, most of it genpdb's.
set -euo pipefail

genpdb=${1:?usage: bench/peer.sh /path/to/genpdb [RUNS]}
runs=${2:-3}
[ -x "$genpdb" ] || { echo "peer.sh: $genpdb is not an executable genpdb" >&2; exit 2; }
command -v taskset >/dev/null || { echo "peer.sh: needs taskset (util-linux)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "peer.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
cd "$(dirname "$0")/.."
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/pdbgen" ./cmd/pdbgen
go build -o "$work/peercheck" ./bench/peercheck
pdbgen=$work/pdbgen
# The set comes with the 5x5 automaton its searches use when none is installed: built
# once here, and put in every fresh directory, so that only the tables are timed.
"$pdbgen" build --pruning --board 5x5 --pruning-depth 14 --out "$work/automaton" -q >/dev/null

# fresh empties the page cache where this user may (else the files are new anyway).
fresh() {
  sync
  { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null || true
}

# timed NAME CMD...: runs CMD, appending "NAME wall cpu rss_kb" to $work/times.
timed() {
  local name=$1
  shift
  fresh
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$@" >"$work/out" 2>"$work/err" || {
    echo "peer.sh: $name failed:" >&2
    tail -5 "$work/err" >&2
    exit 1
  }
  read -r wall user sys rss <"$work/t"
  echo "$name $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $rss" >>"$work/times"
}

groups=("1,2,5,6,7,12" "3,4,8,9,13,14")
single="6,7,8,11,12,13"
for run in $(seq 1 "$runs"); do
  for tool in genpdb pdbgen; do
    # Alternate: odd runs start with genpdb, even runs with pdbgen.
    if [ $((run % 2)) = 0 ]; then tool=$([ $tool = genpdb ] && echo pdbgen || echo genpdb); fi
    for mode in one all; do
      pin=(taskset -c 0)
      jobs=1
      if [ $mode = all ]; then pin=() jobs=$cores; fi
      dir=$work/$tool-$mode-$run
      mkdir -p "$dir"
      if [ $tool = genpdb ]; then
        for i in 0 1; do
          timed "genpdb-set-$mode-$i" ${pin[@]+"${pin[@]}"} "$genpdb" -t "0,${groups[$i]}" -j $jobs -f "$dir/g$i.pdb"
        done
        timed "genpdb-single-$mode" ${pin[@]+"${pin[@]}"} "$genpdb" -t "0,$single" -j $jobs -f "$dir/single.pdb"
      else
        cp "$work"/automaton/*.tbl "$dir/"
        timed "pdbgen-set-$mode" ${pin[@]+"${pin[@]}"} "$pdbgen" build --set 6-6-6-6z --workers $jobs --out "$dir" -q
        timed "pdbgen-single-$mode" ${pin[@]+"${pin[@]}"} "$pdbgen" pdb --board 5x5 --goal blank-first --tiles $single --zero-aware --workers $jobs --out "$dir/single.tbl" -q
      fi
    done
  done
  # The values agree (every run's files, then removed).
  for mode in one all; do
    g=$work/genpdb-$mode-$run p=$work/pdbgen-$mode-$run
    "$work/peercheck" -genpdb "$g/g0.pdb" -table "$p/zpdb-5x5-1-2-5-6-7-12.tbl" -samples 20000 >>"$work/checks"
    "$work/peercheck" -genpdb "$g/g1.pdb" -table "$p/zpdb-5x5-3-4-8-9-13-14.tbl" -samples 20000 >>"$work/checks"
    "$work/peercheck" -genpdb "$g/single.pdb" -table "$p/single.tbl" -samples 20000 >>"$work/checks"
    rm -rf "$g" "$p"
  done
done

# median NAME FIELD: the median over runs of a field (2 wall, 3 cpu, 4 rss) of NAME's lines.
median() {
  awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$work/times" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# The set's two genpdb runs add up (times) or take the larger (memory), run by run.
awk '$1 ~ /^genpdb-set-/ { split($1, p, "-"); k = p[3]; w[k] += $2; c[k] += $3; if ($4 > r[k]) r[k] = $4; if (p[4] == 1) { print "genpdb-set-" k, w[k], c[k], r[k]; w[k] = c[k] = r[k] = 0 } }' "$work/times" >>"$work/times"

echo "peer.sh: $(sort -u "$work/checks" | wc -l) comparisons of values passed ($(wc -l <"$work/checks") in all)"
echo
echo "$(uname -m), $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), medians of $runs alternating runs"
echo
echo "| build | threads | genpdb wall | pdbgen wall | ratio | genpdb CPU | pdbgen CPU | genpdb peak | pdbgen peak |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for what in set single; do
  for mode in one all; do
    gw=$(median genpdb-$what-$mode 2) pw=$(median pdbgen-$what-$mode 2)
    gc=$(median genpdb-$what-$mode 3) pc=$(median pdbgen-$what-$mode 3)
    gr=$(median genpdb-$what-$mode 4) pr=$(median pdbgen-$what-$mode 4)
    label="6-6-6-6z (two tables)"
    [ $what = single ] && label="zero-aware $single"
    threads=1
    [ $mode = all ] && threads=$cores
    printf '| %s | %s | %.1f s | %.1f s | %.1fx | %.1f s | %.1f s | %d MB | %d MB |\n' \
      "$label" $threads "$gw" "$pw" "$(awk -v g="$gw" -v p="$pw" 'BEGIN { print g / p }')" "$gc" "$pc" $((${gr%.*} / 1024)) $((${pr%.*} / 1024))
  done
done
