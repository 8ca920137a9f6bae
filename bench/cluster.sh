#!/usr/bin/env bash
# bench/cluster.sh: two solve15 binaries' `solve15 cluster` side by side on this machine, in
# runs that alternate which goes first, each with a fresh store and --audit 0 (the random
# audit's share would add its own spread): Korf's 100 as whole units (the embedded 6-6-3),
# and ten of them split with md (lines 5, 8, 16, 19, 21, 23, 26, 31, 37, 41 of
# instances/korf100.txt: 6-25 M nodes each). It prints each kind's median wall seconds for
# each binary, and their ratio; a run that does not exit 0 stops it.
#
#   go build -o /tmp/before ./cmd/solve15   # in a checkout of the commit to compare with
#   bench/cluster.sh /tmp/before /tmp/after [WHOLE_RUNS] [SPLIT_RUNS]   # 7 and 15 by default
set -euo pipefail

before=${1:?usage: bench/cluster.sh BEFORE AFTER [WHOLE_RUNS] [SPLIT_RUNS]}
after=${2:?usage: bench/cluster.sh BEFORE AFTER [WHOLE_RUNS] [SPLIT_RUNS]}
whole=${3:-7}
split=${4:-15}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -n '5p;8p;16p;19p;21p;23p;26p;31p;37p;41p' instances/korf100.txt > "$work/ten.txt"

# once KIND BINARY ARGS...: one run's wall seconds, appended to $work/KIND.BINARY.
once() {
	local kind=$1 name=$2 bin=$3
	shift 3
	local store
	store=$(mktemp -d "$work/store.XXXX")
	local t0 t1
	t0=$(date +%s.%N)
	if ! "$bin" cluster --audit 0 --goal blank-first -q --store "$store" "$@" > "$work/out" 2> "$work/err"; then
		echo "bench/cluster.sh: $bin cluster $* failed:" >&2
		cat "$work/err" >&2
		exit 1
	fi
	t1=$(date +%s.%N)
	rm -rf "$store"
	echo "$t1 - $t0" | bc >> "$work/$kind.$name"
}

for _ in $(seq "$whole"); do
	once whole before "$before" -f instances/korf100.txt
	once whole after "$after" -f instances/korf100.txt
done
for _ in $(seq "$split"); do
	once split before "$before" --heuristic md --split -f "$work/ten.txt"
	once split after "$after" --heuristic md --split -f "$work/ten.txt"
done

median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
printf '%-6s %10s %10s %7s\n' run before after ratio
for kind in whole split; do
	b=$(median "$work/$kind.before")
	a=$(median "$work/$kind.after")
	printf '%-6s %9.3fs %9.3fs %7.3f\n' "$kind" "$b" "$a" "$(echo "$a / $b" | bc -l)"
done
