#!/usr/bin/env bash
# Measures again the figures of docs/figures.tsv that a command measures (a row whose
# "measured" column starts with a command in backquotes), and prints each beside the
# table's value with their ratio; exit status 1 when one moved more than 25% (then the
# table, and the helps and documents that quote it, want the new value: TestFiguresTable
# holds them to it).
#
#   bench/figures.sh [RUNS [ROWS]]   # RUNS runs of each command, the median kept (default
#                                    # 1); only the rows whose figure matches the regular
#                                    # expression ROWS (a row that reads the DIR of the row
#                                    # before it, a verify, an info, a repro, wants that
#                                    # row asked for too)
#
# Wall seconds and peak resident memory come from /usr/bin/time. DIR is a fresh
# directory for a command that writes into it (--out DIR), else the last one's; a row of
# memory ("the same runs' peak") takes the peak of the row before it. Rows the program
# computes, or sizes read off files, are left out. Minutes: every set is built.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
rows=${2:-.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/pdbgen" ./cmd/pdbgen
go build -o "$work/bin/solve15" ./cmd/solve15
export PATH="$work/bin:$PATH"
[ -x /usr/bin/time ] || { echo "figures: /usr/bin/time is needed (Debian's time)" >&2; exit 2; }

status=0 n=0 dir="" wall="" peak=""
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
while IFS=$'\t' read -r name value unit measured _; do
  case "$name" in '' | '#'* | figure) continue ;; esac
  [[ $name =~ $rows ]] || continue
  case "$measured" in
  '`'*)
    cmd=${measured#\`}
    cmd=${cmd%%\`*}
    fresh=0
    [[ $cmd =~ --out\ DIR(\ |$) ]] && fresh=1
    if ((fresh)); then
      n=$((n + 1))
      dir="$work/d$n"
    fi
    walls=() peaks=()
    for ((r = 0; r < runs; r++)); do
      ((fresh)) && { rm -rf "$dir"; mkdir -p "$dir"; }
      /usr/bin/time -f "%e %M" -o "$work/time" bash -c "${cmd//DIR/$dir}" >"$work/out" 2>&1 || {
        echo "$name: \`${cmd//DIR/$dir}\` failed: $(tail -2 "$work/out")" >&2
        status=1
        continue 2
      }
      read -r w p <"$work/time"
      walls+=("$w") peaks+=("$p")
    done
    wall=$(printf '%s\n' "${walls[@]}" | median)
    peak=$(printf '%s\n' "${peaks[@]}" | median)
    got=$wall
    ;;
  'the same run'*) got=$(awk -v kb="$peak" -v u="$unit" 'BEGIN {print kb * 1024 / (u == "GB" ? 1e9 : 1e6)}') ;;
  *) continue ;;
  esac
  ratio=$(awk -v g="$got" -v v="$value" 'BEGIN {printf "%.2f", g / v}')
  moved=""
  if awk -v r="$ratio" 'BEGIN {exit !(r > 1.25 || r < 0.8)}'; then
    moved="  MOVED"
    status=1
  fi
  printf '%-36s %10s %-3s measured %10.3f  %sx%s\n' "$name" "$value" "$unit" "$got" "$ratio" "$moved"
done <docs/figures.tsv
exit $status
