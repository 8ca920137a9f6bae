#!/usr/bin/env bash
# Prepares, on a machine with Go, what gpu/check.sh takes to a machine with a GPU and no Go:
# the binaries, the tables it should not spend its minutes building, and the CPU's answers
# to compare with. Everything goes under DIR (.gpucheck by default, which git ignores):
#
#   DIR/bin/solve15.gz, DIR/bin/pdbgen.gz  linux/amd64, CGO off, stripped, gzipped (13 MB)
#   DIR/bin/BUILT_AT                       the commit they were built at (and "+changes")
#   DIR/bin-old/solve15.gz                 with OLD_REV=REV: the same from commit REV, for
#                                          check.sh's step "variants" (the same cases, both builds)
#   DIR/korf100-md-cpu.json                Korf's 100 with md and the move back on this
#                                          machine's cores: the lengths, moves and serial
#                                          counts the GPU's must equal (4-8 minutes on 2 cores)
#   DIR/t39                                6-6-6-6 and the depth-14 automaton (4.7 MB): issue 39's sets
#   DIR/t40                                small-t in bits and the depth-14 automaton (49 MB):
#                                          issue 40's
#   DIR/d18                                the depth-18 automaton (28 MB), which does not fit
#                                          beside t40 in one call's 64 MiB: carried with t39
#
# What exists is kept (delete it to make it again), except the binaries, which are rebuilt
# when the commit or the working tree differs from BUILT_AT's. Each device call then carries
# what it needs; a device call may carry 64 MiB with the working tree (about 11 MB), so a
# session's 15 minutes go in two calls on the same warm machine (the second within its
# idle wait, 30 s), for example:
#
#   gpu/prepare.sh
#   1. carry .gpucheck/bin .gpucheck/t39 .gpucheck/d18 (about 60 MB with the tree), 6-7 min:
#      STEPS="device sanitizer md variants sets" TABLES=.gpucheck/t39 SETS_78=0 \
#        SETS_TUNES="default per=4096,least=65536,subtrees=262144 chunk=32768" \
#        CPU_INSTANCES=30 RUN_SECONDS=60 SET_SECONDS=60 CHECK_SECONDS=330 gpu/check.sh
#   2. carry .gpucheck/t40 (the binaries and d18 stay on the warm machine), 6-7 min:
#      STEPS="smallt onecore twelve campaign" TABLES=.gpucheck/t40:.gpucheck/d18 \
#        SMALLT_SECONDS=60 CHECK_SECONDS=330 gpu/check.sh
#
# The campaign's records ($OUT/campaign-gpu.jsonl) go under docs/repro/campaign/, and the
# next sitting passes over them with CAMPAIGN_DONE=FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.gpucheck}
mkdir -p "$dir/bin"
log() { echo "prepare: $*" >&2; }

# build REV DEST: solve15 and pdbgen of commit REV ("" for the working tree) into DEST.
build() {
  local rev=$1 dest src=.
  mkdir -p "$2"
  dest=$(cd "$2" && pwd)
  if [ -n "$rev" ]; then
    src=$(mktemp -d)
    git worktree add --detach "$src" "$rev" >/dev/null
  fi
  for cmd in solve15 pdbgen; do
    (cd "$src" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags='-s -w' -o "$dest/$cmd.tmp" "./cmd/$cmd")
    gzip -9 -c "$dest/$cmd.tmp" >"$dest/$cmd.gz.tmp"
    mv "$dest/$cmd.gz.tmp" "$dest/$cmd.gz"
    rm "$dest/$cmd.tmp"
  done
  if [ -n "$rev" ]; then
    git worktree remove --force "$src"
  fi
}

rev=$(git rev-parse --short HEAD)
[ -n "$(git status --porcelain --untracked-files=no)" ] && rev+="+changes"
if [ "$(cat "$dir/bin/BUILT_AT" 2>/dev/null)" != "$rev" ] || [[ $rev == *+changes ]]; then
  log "building solve15 and pdbgen at $rev"
  build "" "$dir/bin"
  echo "$rev" >"$dir/bin/BUILT_AT"
fi
if [ -n "${OLD_REV:-}" ] && [ "$(cat "$dir/bin-old/BUILT_AT" 2>/dev/null)" != "$OLD_REV" ]; then
  log "building solve15 at $OLD_REV into $dir/bin-old"
  build "$OLD_REV" "$dir/bin-old"
  rm -f "$dir/bin-old/pdbgen.gz"
  echo "$OLD_REV" >"$dir/bin-old/BUILT_AT"
fi

# The tools run here, built for this machine.
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
go build -o "$tools/solve15" ./cmd/solve15
go build -o "$tools/pdbgen" ./cmd/pdbgen

# tables DEST ARGS...: pdbgen build ARGS --out DEST, unless DEST already holds a file
# matching $want.
tables() {
  local dest=$1
  shift
  mkdir -p "$dest"
  if ! compgen -G "$dest/$want" >/dev/null; then
    log "pdbgen build $* into $dest"
    "$tools/pdbgen" build "$@" --out "$dest" >&2
  fi
}
want='prune-5x5-d14.tbl' tables "$dir/t39" --pruning --board 5x5 --pruning-depth 14
want='pdb-5x5-*.tbl' tables "$dir/t39" --set 6-6-6-6
want='prune-5x5-d14.tbl' tables "$dir/t40" --pruning --board 5x5 --pruning-depth 14
want='zpdb-5x5-*.tbl' tables "$dir/t40" --set small-t --bits
want='prune-5x5-d18.tbl' tables "$dir/d18" --pruning --board 5x5 --pruning-depth 18

ref=$dir/korf100-md-cpu.json
if [ ! -s "$ref" ]; then
  log "Korf's 100 with md on this machine's cores (the reference)"
  "$tools/solve15" --goal blank-first --heuristic md --pruning parent --json -f instances/korf100.txt >"$ref.tmp"
  mv "$ref.tmp" "$ref"
fi
du -sh "$dir"/* >&2
