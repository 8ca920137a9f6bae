#!/usr/bin/env bash
# The device check's entry point on a machine with an NVIDIA GPU and its driver; no Go, no
# CUDA toolkit needed. Run it from
# a copy of the repository with what gpu/prepare.sh made where Go is ($PREPARED, .gpucheck
# by default): it unpacks solve15 and the harness, devcheck, and runs the check
# (devcheck check --help) on the plan $PLAN (card: every headline figure of the GPU in one
# run of at most 8 minutes, which the plan's limits are checked to fit). Logs, each
# process's output, summary.json and summary.md go to $OUT (gpucheck-out).
#
#   gpu/check.sh
#   PLAN=fake PREPARED=/tmp/prep OUT=/tmp/out gpu/check.sh [--reference md=FILE ...]
#
# Arguments after it go to devcheck check: other inputs for a step of the plan.
#
# Exit status: 0 every row passed; 1 a row failed (summary.md says which and why); 2 the
# check would not start: the binary, a table, an instances file or a reference is
# missing, or a table is not one the binary accepts (each named), before the GPU is used.
set -uo pipefail
cd "$(dirname "$0")/.."
prepared=${PREPARED:-.gpucheck}
for cmd in solve15 devcheck; do
  bin=$prepared/bin/$cmd
  if [ -e "$bin.gz" ]; then
    if ! { gunzip -c "$bin.gz" >"$bin.tmp" && chmod +x "$bin.tmp" && mv "$bin.tmp" "$bin"; }; then
      echo "check: could not unpack $bin.gz" >&2
      exit 2
    fi
  fi
  if [ ! -x "$bin" ]; then
    echo "check: no $bin.gz (nor $bin): run gpu/prepare.sh where Go is, and bring $prepared here" >&2
    exit 2
  fi
done
card="no nvidia-smi here"
command -v nvidia-smi >/dev/null && card=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)
echo "check: $prepared/bin, built at $(cat "$prepared/bin/BUILT_AT" 2>/dev/null || echo '?'); $card" >&2
exec "$prepared/bin/devcheck" check --plan "${PLAN:-card}" --prepared "$prepared" \
  --solve15 "$prepared/bin/solve15" --out "${OUT:-gpucheck-out}" "$@"
