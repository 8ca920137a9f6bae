#!/usr/bin/env bash
# The device check: run on a machine with an NVIDIA GPU and its driver, no Go needed. It
# takes a solve15 built elsewhere (CGO_ENABLED=0 go build -ldflags='-s -w' -o
# .gpucheck/solve15 ./cmd/solve15), checks the card and the kernel, runs one small case under
# compute-sanitizer when there is one, solves Korf's 100 with the Manhattan distance on the
# GPU and on all the machine's cores in the same call, compares every length and serial
# count, and ends with a short table. Logs go to $OUT (or ./gpucheck-out).
#
#   gpu/check.sh [SOLVE15]
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.gpucheck/solve15}
out=${OUT:-gpucheck-out}
mkdir -p "$out"
cores=$(nproc)
instances=${INSTANCES:-instances/korf100.txt}
gpu=${GPU_DEVICE:-gpu} # the device of the GPU run: gpu (auto, to try the script without one)
log() { echo "== $*" | tee -a "$out/check.log"; }

log "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"

# 1. The card, the driver, the kernel's JIT, the self-test against the CPU, a fault.
log "solve15 device --fault"
timeout "${DEVICE_SECONDS:-60}" "$bin" device --fault --seconds 3s 2>&1 | tee "$out/device.txt"
device=$?

# 2. One small case under compute-sanitizer (memcheck, then racecheck of shared memory).
sanitizer=skipped
if command -v compute-sanitizer >/dev/null; then
  log "compute-sanitizer"
  timeout "${SANITIZER_SECONDS:-60}" compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 \
    "$bin" device --seconds 0.01s >"$out/sanitizer.txt" 2>&1
  rc=$?
  sanitizer="rc $rc, $(grep -c 'ERROR SUMMARY: 0 errors' "$out/sanitizer.txt") clean summaries"
fi

# 3. Korf's 100 with md, the move back only (published counts): the GPU, then every core.
run() { # name, then solve15's arguments
  local name=$1
  shift
  local begin=$EPOCHREALTIME
  timeout "${RUN_SECONDS:-300}" "$bin" --goal blank-first --heuristic md --pruning parent --json -f "$instances" "$@" \
    >"$out/$name.json" 2>"$out/$name.err"
  local rc=$?
  echo "$rc $(awk -v a="$begin" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
}
log "Korf's 100, md, GPU"
read -r gpu_rc gpu_s < <(run korf100-md-gpu --device "$gpu" --workers 1)
# The cores on the first CPU_INSTANCES instances (all by default), for the rate.
cpu_instances=${CPU_INSTANCES:-100}
grep -v '^#' "$instances" | head -n "$cpu_instances" >"$out/cpu-instances.txt"
log "Korf's 100 (first $cpu_instances), md, $cores cores"
read -r cpu_rc cpu_s < <(instances="$out/cpu-instances.txt" run korf100-md-cpu --workers "$cores")
# A reference run made elsewhere (the serial counts do not depend on the machine).
ref=${REFERENCE:-.gpucheck/korf100-md-cpu.json}

# Per instance: length and serial counts (serial_nodes when split, else nodes).
python3 - "$out" "$gpu_s" "$cpu_s" "$ref" <<'EOF' | tee "$out/compare.txt"
import json, os, sys
out, gpu_s, cpu_s, ref = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
def load(path):
    recs = {}
    if not os.path.exists(path):
        return recs
    for line in open(path):
        r = json.loads(line)
        if "start" in r:
            recs[tuple(r["start"])] = r
    return recs
g, sub = load(f"{out}/korf100-md-gpu.json"), load(f"{out}/korf100-md-cpu.json")
c = dict(load(ref))
c.update(sub)
subserial = sum(r["nodes"] for r in sub.values())
subgpu = sum((g[k].get("device") or {}).get("search_seconds", 0) for k in sub if k in g)
bad = []
devnodes = 0
search = upload = 0.0
for q in g.values():
    d = q.get("device") or {}
    devnodes += d.get("nodes", 0)
    search += d.get("search_seconds", 0)
    upload += d.get("upload_seconds", 0)
util = []
for k, r in c.items():
    q = g.get(k)
    if q is None:
        bad.append(f"#{k}: no GPU result")
        continue
    s = q.get("serial_nodes") or q["nodes"]
    if q["length"] != r["length"] or q["moves"] != r["moves"] or s != r["nodes"] or (q.get("serial_expanded") or q["expanded"]) != r["expanded"]:
        bad.append(f"#{k}: GPU {q['length']} moves {s} serial nodes, CPU {r['length']} moves {r['nodes']} nodes")
    d = q.get("device") or {}
    if d:
        util.append(d.get("utilisation", 0))
print(f"GPU results: {len(g)}; compared with the CPU's: {len(c)} ({len(sub)} run here), disagreements: {len(bad)}")
for b in bad[:10]:
    print("  ", b)
gserial = sum(q.get("serial_nodes") or q["nodes"] for q in g.values())
lengths = sum(q["length"] for q in g.values())
print(f"GPU: {len(g)} solved, lengths sum {lengths}; serial generated nodes {gserial:,}, device nodes {devnodes:,}")
print(f"GPU: {gpu_s:.1f} s wall ({search:.1f} s in launches, {upload:.2f} s uploads), {gserial/gpu_s/1e9:.2f}e9 serial nodes/s")
if sub:
    print(f"CPU, {len(sub)} instances on all cores: {cpu_s:.1f} s wall, {subserial/cpu_s/1e9:.2f}e9 nodes/s")
if util:
    print(f"utilisation: median {sorted(util)[len(util)//2]:.2f}, min {min(util):.2f}")
EOF

log "summary"
{
  echo "| check | result |"
  echo "| --- | --- |"
  echo "| solve15 device --fault | exit $device |"
  echo "| compute-sanitizer memcheck | $sanitizer |"
  echo "| Korf's 100 md, GPU | exit $gpu_rc, ${gpu_s} s |"
  echo "| Korf's 100 md (first $cpu_instances), $cores cores | exit $cpu_rc, ${cpu_s} s |"
} | tee "$out/summary.md"
