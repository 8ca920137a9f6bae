#!/usr/bin/env bash
# Prepares, on a machine with Go, what the device check (gpu/check.sh) takes to a machine
# with an NVIDIA GPU and no Go. Everything goes under DIR (.gpucheck by default, which git
# ignores):
#
#   DIR/bin/solve15.gz   solve15 for linux/amd64, CGO off, stripped, gzipped: the product,
#                        whose searches the check measures
#   DIR/bin/devcheck.gz  the harness (cmd/devcheck), built the same way: it runs the check
#   DIR/bin/BUILT_AT     the commit they were built at ("+changes" when the tree differed)
#   DIR/tables/          the tables the plan carries (devcheck prepare builds those missing;
#                        those there and accepted are kept)
#
# The plan is $PLAN (card by default, the one run on a card; fake, campaign). MAX_MB, when
# given, is the most DIR may hold, measured on the directory: a machine that takes a
# limited carry (the project's device calls take 64 MiB beside the repository) gives its
# own. For the card's plan: the two binaries (about 13 and 5 MB), 6-6-6-6 (3.7 MB), the
# 5x5 automata of depths 14 and 18 (1.1 and 28 MB). small-t in bits (50 MB) would not fit
# beside them: the check builds it on the GPU machine (its plan says so, and how long it
# may take).
#
#   gpu/prepare.sh [DIR] [MAX_MB]     then, on the GPU machine, with DIR carried: gpu/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.gpucheck}
max_mb=${2:-}
plan=${PLAN:-card}
mkdir -p "$dir/bin"
log() { echo "prepare: $*" >&2; }

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && rev+="+changes"
if [ "$(cat "$dir/bin/BUILT_AT" 2>/dev/null)" != "$rev" ] || [[ $rev == *+changes ]] || [[ $rev == unknown ]] ||
  [ ! -s "$dir/bin/solve15.gz" ] || [ ! -s "$dir/bin/devcheck.gz" ]; then
  for cmd in solve15 devcheck; do
    log "building $cmd for linux/amd64 at $rev"
    CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags='-s -w' -o "$dir/bin/$cmd.tmp" "./cmd/$cmd"
    gzip -9 -c "$dir/bin/$cmd.tmp" >"$dir/bin/$cmd.gz.tmp"
    mv "$dir/bin/$cmd.gz.tmp" "$dir/bin/$cmd.gz"
    rm "$dir/bin/$cmd.tmp"
  done
  echo "$rev" >"$dir/bin/BUILT_AT"
fi
# The tables, by this machine's own devcheck; then what DIR holds in all, measured on it.
go run ./cmd/devcheck prepare --plan "$plan" --prepared "$dir"
held=$(du -sb "$dir" | cut -f1)
echo "$dir: $((held / 1000000)) MB to carry (the binaries and the tables)"
if [ -n "$max_mb" ]; then
  if [ "$held" -gt $((max_mb * 1024 * 1024)) ]; then
    echo "prepare: $dir holds $((held / 1024 / 1024)) MiB, more than the $max_mb MiB given" >&2
    exit 1
  fi
fi
