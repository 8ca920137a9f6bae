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
# A binary carried gzipped (solve15 is 31 MB, 13 MB gzipped: room beside small-t's tables
# within what a call may carry).
pdbgen=${PDBGEN:-.gpucheck/pdbgen} # builds the tables not carried
for b in "$bin" "$pdbgen"; do
  if [ ! -x "$b" ] && [ -e "$b.gz" ]; then
    gunzip -c "$b.gz" >"$b" && chmod +x "$b"
  fi
done
out=${OUT:-gpucheck-out}
mkdir -p "$out"
cores=$(nproc)
instances=${INSTANCES:-instances/korf100.txt}
gpu=${GPU_DEVICE:-gpu} # the device of the GPU run: gpu (auto, to try the script without one)
log() { echo "== $*" | tee -a "$out/check.log"; }
# elapsed BEGIN: the seconds since BEGIN ($EPOCHREALTIME).
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

log "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"

steps=" ${STEPS:-device sanitizer md} " # which of: device sanitizer md variants sets smallt onecore twelve campaign tune

# A step starts only while the check has run less than $CHECK_SECONDS (0: no limit), so
# that a check given less time than its steps take still ends with its table.
began=$EPOCHREALTIME
skipped=""
# late NAME: whether the check has run $CHECK_SECONDS, when NAME (a step, or one run of
# a step's) is passed over and listed in the table.
late() {
  local limit=${CHECK_SECONDS:-0}
  if [ "$limit" != 0 ] && awk -v a="$began" -v b="$EPOCHREALTIME" -v l="$limit" 'BEGIN { exit !(b - a >= l) }'; then
    log "$1: skipped, the check has run ${CHECK_SECONDS:-0} s"
    skipped+="$1 "
    return 0
  fi
  return 1
}
step() { # the step's name: whether to run it
  [[ $steps == *" $1 "* ]] || return 1
  ! late "$1"
}

# 1. The card, the driver, the kernel's JIT, the self-test against the CPU, a fault.
device=skipped
if step device; then
  log "solve15 device --fault"
  timeout "${DEVICE_SECONDS:-60}" "$bin" device --fault --seconds 3s 2>&1 | tee "$out/device.txt"
  device="exit $?"
fi

# 2. One small case under compute-sanitizer (memcheck, then racecheck of shared memory).
sanitizer=skipped
if command -v compute-sanitizer >/dev/null && step sanitizer; then
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
  echo "$rc $(elapsed "$begin")"
}
gpu_rc=skipped gpu_s=0 cpu_rc=skipped cpu_s=0 cpu_instances=0 md_rows=""
# A reference run made elsewhere (gpu/prepare.sh; the serial counts do not depend on the machine).
ref=${REFERENCE:-.gpucheck/korf100-md-cpu.json}
# compare_md NAME SECONDS: the GPU's records in $out/NAME.json against the reference and
# this machine's cores (korf100-md-cpu.json), per instance: length, moves and serial
# counts (serial_nodes when split, else nodes); then the run's figures.
compare_md() {
  python3 - "$out" "$1" "$2" "$cpu_s" "$ref" <<'EOF'
import json, os, sys
out, name, gpu_s, cpu_s, ref = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
def load(path):
    recs = {}
    if not os.path.exists(path):
        return recs
    for line in open(path):
        r = json.loads(line)
        if "start" in r:
            recs[tuple(r["start"])] = r
    return recs
g, sub = load(f"{out}/{name}.json"), load(f"{out}/korf100-md-cpu.json")
c = dict(load(ref))
c.update(sub)
subserial = sum(r["nodes"] for r in sub.values())
bad = []
devnodes = 0
search = upload = frontier = solve = order = cpu = engine = wait = records = 0.0
for q in g.values():
    d = q.get("device") or {}
    devnodes += d.get("nodes", 0)
    search += d.get("search_seconds", 0)
    upload += d.get("upload_seconds", 0)
    frontier += d.get("frontier_seconds", 0)
    solve += d.get("solve_seconds", 0)
    order += d.get("order_seconds", 0)
    cpu += d.get("cpu_seconds", 0)
    engine += d.get("engine_seconds", 0)
    wait += d.get("wait_seconds", 0)
    records += q.get("seconds", 0)
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
print(f"{name}: GPU results: {len(g)}; compared with the CPU's: {len(c)} ({len(sub)} run here), disagreements: {len(bad)}")
for b in bad[:10]:
    print("  ", b)
gserial = sum(q.get("serial_nodes") or q["nodes"] for q in g.values())
lengths = sum(q["length"] for q in g.values())
print(f"{name}: {len(g)} solved, lengths sum {lengths}; serial generated nodes {gserial:,}, device nodes {devnodes:,}")
print(f"{name}: {gpu_s:.1f} s wall ({search:.1f} s in launches, {upload:.2f} s uploads, {frontier:.2f} s making frontiers), {gserial/gpu_s/1e9:.2f}e9 serial nodes/s")
print(f"{name}: records {records:.2f} s: {cpu:.2f} s in passes on the CPU, {frontier:.2f} s making frontiers, {order:.2f} s ordering subtrees,"
      f" {engine:.2f} s in the engine ({search:.2f} s launches, {upload:.2f} s uploads, {solve:.2f} s searching solving subtrees again on the CPU,"
      f" {wait:.2f} s waiting while another instance's pass had the GPU)")
if sub:
    print(f"CPU, {len(sub)} instances on all cores: {cpu_s:.1f} s wall, {subserial/cpu_s/1e9:.2f}e9 nodes/s")
if util:
    print(f"{name}: utilisation: median {sorted(util)[len(util)//2]:.2f}, min {min(util):.2f}")
EOF
}
if step md; then
  log "Korf's 100, md, GPU"
  read -r gpu_rc gpu_s < <(run korf100-md-gpu --device "$gpu") # two at a time, every core for each
  # The cores on the first CPU_INSTANCES instances (all by default), for the rate.
  cpu_instances=${CPU_INSTANCES:-100}
  grep -v '^#' "$instances" | head -n "$cpu_instances" >"$out/cpu-instances.txt"
  log "Korf's 100 (first $cpu_instances), md, $cores cores"
  read -r cpu_rc cpu_s < <(instances="$out/cpu-instances.txt" run korf100-md-cpu --workers "$cores")
  compare_md korf100-md-gpu "$gpu_s" | tee "$out/compare.txt"
  md_rows+="| Korf's 100 md, GPU | exit $gpu_rc, ${gpu_s} s |"$'\n'
  md_rows+="| Korf's 100 md (first $cpu_instances), $cores cores | exit $cpu_rc, ${cpu_s} s |"$'\n'
fi

# 3b. Korf's 100 with md on the GPU again under each of $MD_VARIANTS (STEPS includes
# variants), to measure a change on the same card: "tune:KNOBS" is this build under
# TILEKIT_GPU_TUNE=KNOBS (by default the split rule before 7c76ca0, and the turns and polls
# before ab02012), "old" the binary $OLD_BIN (by default .gpucheck/bin-old/solve15,
# gzipped or not: gpu/prepare.sh with OLD_REV); each compared as above.
if step variants; then
  for v in ${MD_VARIANTS:-tune:per=4096,least=65536,subtrees=262144 tune:turn=256,poll=128,donate=128}; do
    vbin=$bin tune="" name=korf100-md-gpu-${v//[:=,]/-}
    late "$name" && continue
    if [ "$v" = old ]; then
      vbin=${OLD_BIN:-.gpucheck/bin-old/solve15}
      if [ ! -x "$vbin" ] && [ -e "$vbin.gz" ]; then
        gunzip -c "$vbin.gz" >"$vbin" && chmod +x "$vbin"
      fi
      if [ ! -x "$vbin" ]; then
        log "variant old: no $vbin (gpu/prepare.sh with OLD_REV makes one), passed over"
        continue
      fi
    else
      tune=${v#tune:}
    fi
    log "Korf's 100, md, GPU, $v"
    read -r rc s < <(bin=$vbin TILEKIT_GPU_TUNE=$tune run "$name" --device "$gpu")
    compare_md "$name" "$s" | tee -a "$out/compare.txt"
    md_rows+="| Korf's 100 md, GPU, $v | exit $rc, $s s |"$'\n'
  done
fi

# 4. The sets (STEPS includes sets): Korf's 100 with 7-8 (built here with the carried
# pdbgen when the tables' directory lacks it: about a minute on 16 cores), and k24-38,
# k24-40, k24-01 and k24-28 with 6-6-6-6 and the depth-14 automaton (carried, or built here),
# on the GPU under each setting of $SETS_TUNES (default "default nodonate=1": threads that
# donate, and threads that give up what proves large instead; e.g. window=1) and on every
# core, their lengths and serial counts compared.
sets_rows=""
if step sets; then
  export TILEKIT_TABLES=${TABLES:-.gpucheck/tables}
  # SETS_78=0 leaves out Korf's 100 with 7-8: building it takes 162 s on 16 cores, and
  # its passes (all under the GPU's threshold) never reach the GPU.
  sets78=${SETS_78:-1}
  if [ "$sets78" != 0 ] && [ ! -e "$TILEKIT_TABLES/pdb-4x4-1-2-3-4-5-6-7-8.tbl" ]; then
    log "building 7-8"
    b=$EPOCHREALTIME
    "$pdbgen" build --set 7-8 --out "$TILEKIT_TABLES" >"$out/build78.txt" 2>&1
    rc=$?
    sets_rows+="| pdbgen build --set 7-8 | exit $rc, $(elapsed "$b") s |"$'\n'
  fi
  # 6-6-6-6 (3.7 MB of files, 107 s on 2 cores) and the depth-14 automaton (1 MB), when
  # not carried.
  if [ ! -e "$TILEKIT_TABLES/pdb-5x5-3-4-8-9-13-14.tbl" ]; then
    log "building 6-6-6-6"
    b=$EPOCHREALTIME
    "$pdbgen" build --set 6-6-6-6 --out "$TILEKIT_TABLES" >"$out/build6666.txt" 2>&1
    rc=$?
    sets_rows+="| pdbgen build --set 6-6-6-6 | exit $rc, $(elapsed "$b") s |"$'\n'
  fi
  if [ ! -e "$TILEKIT_TABLES/prune-5x5-d14.tbl" ]; then
    log "building the depth-14 automaton"
    "$pdbgen" build --pruning --board 5x5 --pruning-depth 14 --out "$TILEKIT_TABLES" >"$out/build-d14.txt" 2>&1
  fi
  timed() { # name, tuning, then solve15's arguments: the exit status and seconds
    local name=$1 tune=$2
    shift 2
    local begin=$EPOCHREALTIME
    TILEKIT_GPU_TUNE=$tune timeout "${SET_SECONDS:-120}" "$bin" --json "$@" >"$out/$name.json" 2>"$out/$name.err"
    echo "$? $(elapsed "$begin")"
  }
  # The GPU under each setting of $SETS_TUNES ($TILEKIT_GPU_TUNE; "default" for none:
  # threads that donate), then every core ("cpu"): configure sets each one's name, device
  # and tuning.
  settings="${SETS_TUNES:-default nodonate=1} cpu"
  configure() {
    name=gpu dev=$gpu tune=""
    [ "$1" = cpu ] && name=cpu dev=cpu
    [ "$1" != cpu ] && [ "$1" != default ] && name="gpu-$1" tune=$1
    return 0
  }
  for setting in $settings; do
    [ "$sets78" = 0 ] && break
    configure "$setting"
    log "Korf's 100, 7-8, $name"
    read -r rc s < <(timed "k100-78-$name" "$tune" --goal blank-first --heuristic 7-8 --device "$dev" --workers "$cores" -f instances/korf100.txt)
    sets_rows+="| Korf's 100, 7-8, $name | exit $rc, $s s |"$'\n'
  done
  for id in ${SETS_IDS:-k24-38 k24-40 k24-01 k24-28}; do
    state=$(awk -v id="$id" '$1 == id { for (i = 2; i <= 26; i++) printf "%s ", $i }' instances/korf24-twelve.txt)
    for setting in $settings; do
      configure "$setting"
      late "$id-$name" && continue
      log "$id, 6-6-6-6, $name"
      read -r rc s < <(timed "$id-$name" "$tune" --board 5x5 --goal blank-first --heuristic 6-6-6-6 --pruning-depth 14 --device "$dev" --workers "$cores" "$state")
      sets_rows+="| $id, 6-6-6-6, $name | exit $rc, $s s |"$'\n'
    done
  done
  python3 - "$out" <<'PY' | tee "$out/sets.txt"
import glob, json, os, sys
out = sys.argv[1]
def load(path):
    recs = {}
    if os.path.exists(path):
        for line in open(path):
            r = json.loads(line)
            if "start" in r:
                recs[tuple(r["start"])] = r
    return recs
for id in ["k100-78"] + [f"k24-{n}" for n in ("38", "40", "01", "28")]:
    c = load(f"{out}/{id}-cpu.json")
    for path in sorted(glob.glob(f"{out}/{id}-gpu*.json")):
        name = os.path.basename(path)[len(id) + 1:-len(".json")]
        g = load(path)
        bad = [k for k in c if k not in g or g[k]["length"] != c[k]["length"]
               or (g[k].get("serial_nodes") or g[k]["nodes"]) != (c[k].get("serial_nodes") or c[k]["nodes"])]
        dev = [q.get("device") or {} for q in g.values()]
        search = sum(d.get("search_seconds", 0) for d in dev)
        frontier = sum(d.get("frontier_seconds", 0) for d in dev)
        util = [d["utilisation"] for d in dev if d]
        launches = sum(d.get("launches", 0) for d in dev)
        givenup = sum(d.get("given_up", 0) for d in dev)
        raised = sum(d.get("raised", 0) for d in dev)
        split = sum(d.get("split_seconds", 0) for d in dev)
        expanded = sum(d.get("expanded", 0) for d in dev)
        roots = sum(d.get("donated", 0) + d.get("subtrees", 0) for d in dev)
        claims = sum(d.get("claims", 0) for d in dev)
        misses = sum(d.get("misses", 0) for d in dev)
        wall = sum(q.get("seconds", 0) for q in g.values())
        cores = sum(q.get("seconds", 0) for q in c.values())
        print(f"{id} {name}: {len(g)} on the GPU, {len(c)} on the cores, {len(bad)} disagree; {wall:.2f} s wall, cores {cores:.2f} s;"
              f" GPU launches {search:.2f} s ({launches}, {expanded / 1e6:.1f} M expanded, {givenup:,} subtrees given up, {raised:,} of them raised,"
              f" split in {split:.2f} s), frontiers {frontier:.2f} s, {roots / max(search, 1e-9) / 1e6:.1f} M roots/s, claims {claims:,} taking, {misses:,} not"
              + (f", utilisation {min(util):.2f}-{max(util):.2f}" if util else ""))
PY
fi

# 5. small-t (STEPS includes smallt): k24-38, k24-40 and k24-01 with small-t in the bit
# encoding and the automaton of depth $SMALLT_DEPTH (18 by default), on the GPU (cat.h)
# under each tuning of $SMALLT_TUNES (e.g. "default subtrees=65536") and on every core,
# their lengths and serial counts compared (issue 40). The tables come
# from $TABLES: carry them (the twelve zpdb-5x5-*.tbl of 'pdbgen build --set small-t
# --bits', 50 MB; prune-5x5-d18.tbl, 28 MB, or prune-5x5-d14.tbl, 1 MB), or they are built
# here with the carried pdbgen.
smallt_rows=""
# smallt_tables: small-t in bits and the automaton of depth $SMALLT_DEPTH (18 by default)
# in $TILEKIT_TABLES (from $TABLES, directories separated by ':', the first written to),
# built there with the carried pdbgen when no directory holds them. Steps 5, 5b and 5c.
smallt_ready=""
smallt_tables() {
  [ -n "$smallt_ready" ] && return 0
  export TILEKIT_TABLES=${TABLES:-.gpucheck/tables}
  local first=${TILEKIT_TABLES%%:*} b rc
  mkdir -p "$first"
  have() { local d; for d in ${TILEKIT_TABLES//:/ }; do compgen -G "$d/$1" >/dev/null && return 0; done; return 1; }
  if ! have 'zpdb-5x5-*.tbl'; then
    log "building small-t in bits"
    b=$EPOCHREALTIME
    "$pdbgen" build --set small-t --bits --out "$first" >"$out/build-smallt.txt" 2>&1
    rc=$?
    smallt_rows+="| pdbgen build --set small-t --bits | exit $rc, $(elapsed "$b") s |"$'\n'
  fi
  depth=${SMALLT_DEPTH:-18} # the automaton's depth: 18 (28 MB), or 14 (1 MB)
  if ! have "prune-5x5-d$depth.tbl"; then
    log "building the depth-$depth automaton"
    b=$EPOCHREALTIME
    "$pdbgen" build --pruning --board 5x5 --pruning-depth "$depth" --out "$first" >"$out/build-d$depth.txt" 2>&1
    rc=$?
    smallt_rows+="| pdbgen build --pruning-depth $depth | exit $rc, $(elapsed "$b") s |"$'\n'
  fi
  # solve15's arguments for small-t with the automaton on 5x5, the JSON records.
  smallt=(--json --board 5x5 --goal blank-first --heuristic small-t --pruning-depth "$depth")
  smallt_ready=1
}
# 5. small-t (STEPS includes smallt): k24-38, k24-40 and k24-01 with small-t in the bit
# encoding and the automaton, on the GPU (cat.h) under each tuning of $SMALLT_TUNES (e.g.
# "default subtrees=65536") and on every core, their lengths and serial counts compared
# (issue 40). Carry the tables (the twelve zpdb-5x5-*.tbl of 'pdbgen build --set small-t
# --bits', 48 MB; prune-5x5-d18.tbl, 28 MB, or prune-5x5-d14.tbl, 1 MB: gpu/prepare.sh
# makes both), or they are built here.
if step smallt; then
  smallt_tables
  # The GPU under each setting of $SMALLT_TUNES ($TILEKIT_GPU_TUNE, as in step 6; "default"
  # for none), then every core. Both use all the cores for the passes the CPU searches.
  for id in k24-38 k24-40 k24-01; do
    state=$(awk -v id="$id" '$1 == id { for (i = 2; i <= 26; i++) printf "%s ", $i }' instances/korf24-twelve.txt)
    for setting in ${SMALLT_TUNES:-default} cpu; do
      name=gpu dev=$gpu tune=""
      [ "$setting" = cpu ] && name=cpu dev=cpu
      [ "$setting" != cpu ] && [ "$setting" != default ] && name="gpu-$setting" tune=$setting
      late "$id-smallt-$name" && continue
      log "$id, small-t, depth $depth, $name"
      begin=$EPOCHREALTIME
      TILEKIT_GPU_TUNE=$tune timeout "${SMALLT_SECONDS:-120}" "$bin" "${smallt[@]}" --device "$dev" --workers "$cores" "$state" >"$out/$id-smallt-$name.json" 2>"$out/$id-smallt-$name.err"
      rc=$?
      smallt_rows+="| $id, small-t, $name | exit $rc, $(elapsed "$begin") s |"$'\n'
    done
  done
  python3 - "$out" <<'PY' | tee "$out/smallt.txt"
import json, os, sys
out = sys.argv[1]
def load(path):
    if not os.path.exists(path):
        return None
    for line in open(path):
        r = json.loads(line)
        if "start" in r:
            return r
import glob
for id in ("k24-38", "k24-40", "k24-01"):
    c = load(f"{out}/{id}-smallt-cpu.json")
    for path in sorted(glob.glob(f"{out}/{id}-smallt-gpu*.json")):
        name = os.path.basename(path)[len(id) + len("-smallt-"):-len(".json")]
        g = load(path)
        if not g or not c:
            print(f"{id} {name}: missing ({'gpu' if not g else 'cpu'})")
            continue
        serial = lambda q: (q.get("serial_nodes") or q["nodes"], q.get("serial_expanded") or q["expanded"])
        same = g["length"] == c["length"] and serial(g) == serial(c)
        d = g.get("device") or {}
        launches = d.get("search_seconds", 0)
        rate = (f"GPU launches {launches:.2f} s, frontiers {d.get('frontier_seconds', 0):.2f} s, utilisation {d.get('utilisation', 0):.2f}, {d.get('donated', 0):,} donated,"
                f" {(d.get('donated', 0) + d.get('subtrees', 0)) / max(launches, 1e-9) / 1e6:.1f} M roots/s, claims {d.get('claims', 0):,} taking, {d.get('misses', 0):,} not,"
                f" {serial(g)[1] / launches / 1e6:.1f} M serial expanded/s in launches" if launches > 0 else "no GPU launches")
        print(f"{id} {name}: {'same' if same else 'DIFFER'}: length {g['length']}, serial expanded {serial(g)[1]:,} / {serial(c)[1]:,};"
              f" {g.get('seconds', 0):.2f} s wall, cores {c.get('seconds', 0):.2f} s; {rate}")
PY
fi

# 5b. small-t on one core (STEPS includes onecore), for the GPU's rate against one core of
# the same machine (issue 40: serial expanded nodes over wall time): each of $ONECORE
# (k24-40 and k24-38) for $ONECORE_SECONDS (25 s) with one worker; a record stopped by
# --timeout counts what it expanded.
if step onecore; then
  smallt_tables
  for id in ${ONECORE:-k24-40 k24-38}; do
    state=$(awk -v id="$id" '$1 == id { for (i = 2; i <= 26; i++) printf "%s ", $i }' instances/korf24-twelve.txt)
    log "$id, small-t, depth $depth, one core"
    "$bin" "${smallt[@]}" --device cpu --workers 1 --timeout "${ONECORE_SECONDS:-25}s" "$state" >"$out/$id-smallt-onecore.json" 2>"$out/$id-smallt-onecore.err"
    rate=$(python3 - "$out/$id-smallt-onecore.json" <<'PY' 2>&1
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "start" in l][0]
print(f"{r['expanded']:,} expanded in {r['seconds']:.1f} s, {r['expanded'] / r['seconds'] / 1e6:.2f} M/s")
PY
)
    smallt_rows+="| $id, small-t, one core | $rate |"$'\n'
    echo "$id one core: $rate" | tee -a "$out/onecore.txt"
  done
fi

# 5c and 5d. Batches of 24-puzzle instances with small-t on the GPU, two at a time, each
# record written as its instance ends, so that a batch stopped by the call's end keeps
# what it finished: the twelve (STEPS includes twelve; instances/korf24-twelve.txt, at
# most $TWELVE_SECONDS, 120 by default), and the campaign (STEPS includes campaign;
# instances/korf24-campaign.txt easiest first, at most $CAMPAIGN_SECONDS, 150 by default,
# passing over what the records in $CAMPAIGN_DONE, a file of an earlier sitting's, solved).
# Each ends with the solved, every length against the published optimum (the instance
# files' last number), the serial expanded nodes a second and, when step onecore ran,
# that rate over one core's.
campaign_rows=""
batch() { # name, instance file, seconds, then solve15's arguments
  local name=$1 file=$2 secs=$3 begin rc
  shift 3
  log "$name, small-t, depth $depth, GPU, at most $secs s"
  begin=$EPOCHREALTIME
  timeout -s INT "$secs" "$bin" "${smallt[@]}" --device "$gpu" -f "$file" "$@" >"$out/$name-gpu.jsonl" 2>"$out/$name-gpu.err"
  rc=$?
  local wall
  wall=$(elapsed "$begin")
  python3 - "$out" "$name" "$file" "$wall" <<'PY' | tee "$out/$name.txt"
import glob, json, sys
out, name, file, wall = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
published = {}
for line in open(file):
    f = line.split("#")[0].split()
    if len(f) >= 27:
        published[tuple(int(x) for x in f[1:26])] = (f[0], int(f[26]))
recs = [json.loads(l) for l in open(f"{out}/{name}-gpu.jsonl") if l.strip()]
recs = [r for r in recs if "start" in r]
solved = [r for r in recs if r.get("solved")]
wrong = [published.get(tuple(r["start"]), ("?", -1))[0] for r in solved if published.get(tuple(r["start"]), ("?", -1))[1] != r["length"]]
serial = sum(r.get("serial_expanded") or r["expanded"] for r in solved)
secs = sum(r.get("seconds", 0) for r in solved)
one = []
for path in glob.glob(f"{out}/*-smallt-onecore.json"):
    for l in open(path):
        if "start" in l:
            r = json.loads(l)
            one.append(r["expanded"] / r["seconds"])
rate = serial / wall if wall > 0 else 0
vs = f", {rate / (sum(one) / len(one)):.1f}x one core ({sum(one) / len(one) / 1e6:.2f} M/s)" if one and rate else ""
names = " ".join(published.get(tuple(r["start"]), ("?",))[0] + f" {r.get('seconds', 0):.1f}s" for r in solved)
print(f"{name}: {len(solved)} of {len(published)} solved in {wall:.1f} s wall, {len(wrong)} lengths not the published optimum {wrong};"
      f" {serial:,} serial expanded, {rate / 1e6:.1f} M/s over the wall{vs}; records' seconds {secs:.1f}; {names}")
PY
  campaign_rows+="| $name, small-t, GPU | exit $rc, $(tail -1 "$out/$name.txt" | cut -d: -f2- | cut -d';' -f1) |"$'\n'
}
if step twelve; then
  smallt_tables
  batch twelve "${TWELVE_FILE:-instances/korf24-twelve.txt}" "${TWELVE_SECONDS:-120}"
fi
if step campaign; then
  smallt_tables
  # Easiest first: the file is hardest first.
  grep -v "^#" "${CAMPAIGN_FILE:-instances/korf24-campaign.txt}" | tac >"$out/campaign-instances.txt"
  done_args=()
  [ -n "${CAMPAIGN_DONE:-}" ] && done_args=(--done "$CAMPAIGN_DONE")
  batch campaign "$out/campaign-instances.txt" "${CAMPAIGN_SECONDS:-150}" "${done_args[@]}"
fi

# 6. The scheduler's knobs (STEPS includes tune): the first of $INSTANCES (Korf #1) with md
# and the move back on the GPU under each setting of $TUNES ($TILEKIT_GPU_TUNE: donate=N
# nodes below a root before a thread donates, poll=N nodes between polls, wait=NS the
# longest idle wait, turn=N nodes a thread expands before its warp looks for work), each run's wall time, rate and utilisation.
tune_rows=""
if step tune; then
  grep -v '^#' "$instances" | head -n "${TUNE_INSTANCES:-1}" >"$out/tune-instances.txt"
  for setting in ${TUNES:-default donate=512 donate=2048 turn=64 turn=1024 poll=512 wait=262144}; do
    log "tune $setting"
    tune=$setting
    [ "$setting" = default ] && tune=""
    begin=$EPOCHREALTIME
    # Each setting at most TUNE_TIMEOUT (20 s; the record then says how far it got).
    TILEKIT_GPU_TUNE=$tune timeout "${TUNE_SECONDS:-60}" "$bin" --goal blank-first --heuristic md --pruning parent --json \
      --timeout "${TUNE_TIMEOUT:-20s}" --device "$gpu" -f "$out/tune-instances.txt" >"$out/tune-$setting.json" 2>"$out/tune-$setting.err"
    rc=$?
    secs=$(elapsed "$begin")
    rate=$(python3 - "$out/tune-$setting.json" "$secs" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
recs = [r for r in recs if "start" in r]
serial = sum(r.get("serial_nodes") or r.get("nodes", 0) for r in recs)
dev = [r.get("device") or {} for r in recs]
nodes = sum(d.get("nodes", 0) for d in dev)
search = sum(d.get("search_seconds", 0) for d in dev)
util = [d["utilisation"] for d in dev if d]
solved = sum(1 for r in recs if r.get("solved"))
print(f"{solved} of {len(recs)} solved, {serial / float(sys.argv[2]) / 1e6:.1f} M serial nodes/s, {nodes / max(search, 1e-9) / 1e6:.1f} M device nodes/s in launches,"
      f" utilisation {min(util) if util else 0:.2f}")
PY
)
    tune_rows+="| tune $setting | exit $rc, $secs s; $rate |"$'\n'
  done
fi

log "summary"
{
  echo "| check | result |"
  echo "| --- | --- |"
  echo "| solve15 device --fault | $device |"
  echo "| compute-sanitizer memcheck | $sanitizer |"
  printf "%s" "$md_rows"
  printf "%s" "$sets_rows"
  printf "%s" "$smallt_rows"
  printf "%s" "$campaign_rows"
  printf "%s" "$tune_rows"
  [ -n "$skipped" ] && echo "| skipped for time (CHECK_SECONDS=${CHECK_SECONDS:-0}) | $skipped|"
  echo "| the check | $(elapsed "$began") s |"
} | tee "$out/summary.md"
