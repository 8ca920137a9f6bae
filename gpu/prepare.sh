#!/usr/bin/env bash
# Prepares, on a machine with Go, what the device check (gpu/check.sh) takes to a machine
# with an NVIDIA GPU and no Go. Everything goes under DIR (.gpucheck by default, which git
# ignores):
#
#   DIR/bin/solve15.gz  solve15 for linux/amd64, CGO off, stripped, gzipped: the check runs
#                       it, and it runs the check's searches
#   DIR/bin/BUILT_AT    the commit it was built at ("+changes" when the tree differed)
#   DIR/tables/         the tables the plan carries (solve15 device prepare builds those
#                       missing; those there and accepted are kept)
#
# The plan is $PLAN (gpu/plans/card.json by default, the one run on a card). What a device
# call takes beside the repository (about 10 MB of tracked files) is at most 64 MiB; for
# the card's plan:
#
#   solve15.gz                                   13 MB
#   6-6-6-6 (two files)                           3.7 MB
#   the 5x5 automaton of depth 14                 1.1 MB
#   the 5x5 automaton of depth 18                28 MB
#                                                ------
#                                                46 MB, 56 MB with the repository
#
# small-t in bits (50 MB) would not fit beside them: the check builds it on the GPU
# machine (its plan says so, and how long it may take). solve15 device prepare refuses a
# DIR of more than 64 MiB.
#
#   gpu/prepare.sh [DIR]     then, on the GPU machine, with DIR carried: gpu/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.gpucheck}
plan=${PLAN:-gpu/plans/card.json}
mkdir -p "$dir/bin"
log() { echo "prepare: $*" >&2; }

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && rev+="+changes"
if [ "$(cat "$dir/bin/BUILT_AT" 2>/dev/null)" != "$rev" ] || [[ $rev == *+changes ]] || [[ $rev == unknown ]] || [ ! -s "$dir/bin/solve15.gz" ]; then
  log "building solve15 for linux/amd64 at $rev"
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags='-s -w' -o "$dir/bin/solve15.tmp" ./cmd/solve15
  gzip -9 -c "$dir/bin/solve15.tmp" >"$dir/bin/solve15.gz.tmp"
  mv "$dir/bin/solve15.gz.tmp" "$dir/bin/solve15.gz"
  rm "$dir/bin/solve15.tmp"
  echo "$rev" >"$dir/bin/BUILT_AT"
fi
# The tables, by this machine's own solve15, which also checks what DIR holds in all.
go run ./cmd/solve15 device prepare --plan "$plan" --prepared "$dir"
