// The GPU's IDA* pass (pass.h, set.h, cat.h): one persistent thread a worker, each taking roots
// until the pass is over, an entry a kind of search (kinds.h). Compiled to PTX by go
// generate (TestKernelIsCurrent -update, generate_test.go).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "kinds.h"

// run is a thread's loop: it takes roots and searches below them until the pass is over.
//
// A warp's threads go through the loop together, a turn at a time: those without a root
// take what one of them claims for all (tk::claim), those with one search at most a turn's
// expansions (tk::turn), and only a warp of which no thread holds a root sleeps. A thread
// never sleeps, nor waits in a branch of its own, while others of its warp search: the
// warp would wait with it (a sleeping branch of a divergent warp holds the warp's other
// branches too). The host's emulation does the same for each group of 32 (tk::takeGroup).
template <class W>
__device__ void run(tk::Pass* p, const tk::Tables* t) {
  __shared__ tk::Tables st;
  // The tables are small but for the automaton and a set's tables, which stay in global
  // memory.
  const uint8_t* src = reinterpret_cast<const uint8_t*>(t);
  uint8_t* dst = reinterpret_cast<uint8_t*>(&st);
  for (uint32_t i = threadIdx.x; i < sizeof(tk::Tables); i += blockDim.x) dst[i] = src[i];
  __syncthreads();

  W w;
  w.active = false;
  w.idle = false;
  w.started = false;
  w.since = 0;
  w.polls = threadIdx.x;  // the threads of a block read the cancel flag at different polls
  bool over = false;
  long long begin = clock64(), busy = 0, took = 0;
  w.claims = w.misses = 0;
  const unsigned warp = __activemask();  // the whole warp: blocks are whole warps
  const int lane = threadIdx.x & 31;
  const uint32_t budget = tk::turn(p);
  // A claim that finds nothing is tried again after a wait that doubles up to p->waitMax
  // (64 us), and a warp with no root at all sleeps that long; threads that have just
  // finished a root claim at once. (The wait is kept alike in every thread of the warp:
  // each acts on the asker's answer.)
  const unsigned waitMax = p->waitMax != 0 ? p->waitMax : 65536;
  unsigned wait = 128;
  long long askAt = 0;
  for (;;) {
    const bool wants = !over && !w.active;
    const unsigned want = __ballot_sync(warp, wants);
    if (want != 0) {
      const unsigned fresh = __ballot_sync(warp, wants && !w.idle);
      const unsigned starting = __ballot_sync(warp, wants && !w.started);
      const int asker = __ffs(want) - 1;
      tk::Claim c = {0, 0, 0, 0};
      uint32_t asked = 0;
      long long now = 0;
      if (lane == asker) {
        if (starting != 0) atomicAdd(&p->threads, (uint32_t)__popc(starting));
        now = clock64();
        if (fresh != 0 || now >= askAt) {
          c = tk::claim(p, (uint32_t)__popc(want));
          asked = 1;
        }
      }
      if (wants) w.started = true;
      asked = __shfl_sync(warp, asked, asker);
      if (asked != 0) {
        c.q = __shfl_sync(warp, c.q, asker);
        c.nq = __shfl_sync(warp, c.nq, asker);
        c.f = __shfl_sync(warp, c.f, asker);
        c.nf = __shfl_sync(warp, c.nf, asker);
        now = __shfl_sync(warp, now, asker);
        const uint32_t got = c.nq + c.nf;
        bool has = false;
        const uint32_t k = (uint32_t)__popc(want & ((1u << lane) - 1));
        if (wants && k < got) {
          tk::Root r;
          const uint8_t* seed;
          tk::claimed(p, c, k, &r, &seed);
          // A later subtree than the earliest solving one: nothing to search.
          if ((int32_t)r.sub <= tk::vloadi(&p->best)) {
            tk::start(&w, r, &st, p, seed);
            took = clock64();
            has = true;
          }
        }
        // The warp's change to Pass.idle, made at once: those that found no root are
        // idle, those that found one no longer.
        const unsigned nowIdle = __ballot_sync(warp, wants && !has && !w.idle);
        const unsigned nowBusy = __ballot_sync(warp, has && w.idle);
        if (wants) w.idle = !has;
        uint32_t end = 0;
        if (lane == asker) {
          int d = __popc(nowIdle) - __popc(nowBusy);
          if (d != 0) atomicAdd(&p->idle, (uint32_t)d);
          if (got > 0) {
            w.claims++;
          } else {
            w.misses++;
            end = tk::passOver(p) ? 1 : 0;
          }
        }
        end = __shfl_sync(warp, end, asker);
        if (end != 0 && wants) over = true;
        if (got > 0) {
          wait = 128;
          askAt = 0;
        } else {
          askAt = now + 2 * (long long)wait;  // about wait ns: clocks are 1.1-2 GHz
          wait = wait < waitMax ? 2 * wait : waitMax;
        }
      }
    }
    if (w.active) {
      // A turn's expansions, over as many roots as the thread finishes in it (takeOwn).
      uint32_t left = budget;
      while (tk::stepOf(&w, p, &st, left)) {
        tk::finish(&w, p);
        busy += clock64() - took;
        if (left == 0 || !tk::takeOwn(&w, p, &st)) break;
        took = clock64();
      }
    }
    if (__all_sync(warp, over)) break;
    if (!__any_sync(warp, w.active)) {
      // Nothing to search in the whole warp: sleep, and ask at once after.
      __nanosleep(wait);
      askAt = 0;
    }
  }
  atomicAdd(&p->busy, (unsigned long long)busy);
  atomicAdd(&p->cycles, (unsigned long long)(clock64() - begin));
  if (w.claims != 0) atomicAdd(&p->claims, w.claims);
  if (w.misses != 0) atomicAdd(&p->misses, w.misses);
}

// Each kind's entry searches one pass below the frontier p->roots: ida_pass with the
// Manhattan distance (pass.h), ida_pass_set with a set (set.h), ida_pass_cat with a
// catalogue of zero-aware tables, each root starting from its seed (cat.h).
#define TK_ENTRY(entry, W, fn, grows) \
  extern "C" __global__ void __launch_bounds__(256, 4) entry(tk::Pass* p, const tk::Tables* t) { run<tk::W>(p, t); }
TK_KINDS(TK_ENTRY)
#undef TK_ENTRY

// The frontier's growth (grow.h): a node of the level p->grow->from a thread, kGrowBlock
// threads a block.
using GrowReduce = cub::BlockReduce<uint32_t, tk::kGrowBlock>;
using GrowReduce64 = cub::BlockReduce<unsigned long long, tk::kGrowBlock>;
using GrowScan = cub::BlockScan<uint32_t, tk::kGrowBlock>;
union GrowTemp {
  GrowReduce::TempStorage reduce;
  GrowReduce64::TempStorage reduce64;
  GrowScan::TempStorage scan;
};

// growAccount adds a block's time to the pass's busy and cycles: its threads with a node
// busy from its start to its end, every thread counted. (The threads of the card outside
// the launch are not: a level's launches are short beside the search's.)
__device__ void growAccount(tk::Pass* p, long long began, uint32_t n) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long took = (unsigned long long)(clock64() - began);
  uint32_t first = blockIdx.x * tk::kGrowBlock;
  uint32_t nodes = n > first ? min(n - first, (uint32_t)tk::kGrowBlock) : 0;
  atomicAdd(&p->busy, took * nodes);
  atomicAdd(&p->cycles, took * tk::kGrowBlock);
}

// growCount writes each node's count of the next level's nodes below it to Grow.counts,
// and each block's sum to Grow.sums; the last block to finish scans the sums into each
// block's offset in the next level, and its size into Grow.total.
template <class W>
__device__ void growCount(tk::Pass* p, const tk::Tables* t) {
  __shared__ GrowTemp tmp;
  __shared__ bool last;
  const long long began = clock64();
  tk::Grow* g = p->grow;
  const uint32_t i = blockIdx.x * tk::kGrowBlock + threadIdx.x;
  uint32_t c = 0;
  if (i < g->n) {
    tk::Below w;
    c = tk::Growth<W>::below(p, t, g, i, 0, 0, false, &w);
    g->counts[i] = c;
  }
  const uint32_t sum = GrowReduce(tmp.reduce).Sum(c);
  if (threadIdx.x == 0) {
    g->sums[blockIdx.x] = sum;
    __threadfence();
    last = atomicAdd(&g->done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    // Every block's sum is written (each fenced before it counted itself).
    __threadfence();
    volatile uint32_t* sums = g->sums;
    uint32_t carry = 0;
    for (uint32_t base = 0; base < gridDim.x; base += tk::kGrowBlock) {
      const uint32_t k = base + threadIdx.x;
      const uint32_t v = k < gridDim.x ? sums[k] : 0;
      uint32_t ex, all;
      GrowScan(tmp.scan).ExclusiveSum(v, ex, all);
      if (k < gridDim.x) sums[k] = carry + ex;
      carry += all;
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      g->total = carry;
      g->done = 0;
    }
  }
  growAccount(p, began, g->n);
}

// growWrite writes the next level's nodes below each node at its block's offset and its
// place among the block's, counts the search down to them (growCounted), and on the last
// level counts them by slack (a block's count first, then one add a slack).
template <class W>
__device__ void growWrite(tk::Pass* p, const tk::Tables* t) {
  __shared__ GrowTemp tmp;
  __shared__ uint32_t slacks[tk::kSlacks];
  const long long began = clock64();
  tk::Grow* g = p->grow;
  const bool last = g->slacks != nullptr;
  if (last) {
    for (uint32_t k = threadIdx.x; k < tk::kSlacks; k += blockDim.x) slacks[k] = 0;
  }
  const uint32_t i = blockIdx.x * tk::kGrowBlock + threadIdx.x;
  const uint32_t c = i < g->n ? g->counts[i] : 0;
  uint32_t off;
  GrowScan(tmp.scan).ExclusiveSum(c, off);
  uint32_t gen = 0;
  if (i < g->n) {
    off += g->sums[blockIdx.x];
    tk::Below w;
    const tk::Root& r = g->from[i];
    tk::Growth<W>::below(p, t, g, i, off, off < g->cap ? g->cap - off : 0, true, &w);
    tk::growCounted(p, r, w);
    gen = w.gen;
  }
  if (last) {
    __syncthreads();  // the block's slacks zeroed
    for (uint32_t k = 0; k < c && off + k < g->cap; k++) atomicAdd(&slacks[tk::slackOf(p, g->to[off + k])], 1u);
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < tk::kSlacks; k += blockDim.x) {
      if (slacks[k] != 0) atomicAdd(&g->slacks[k], slacks[k]);
    }
  }
  if (p->limit != 0) {
    __syncthreads();
    const unsigned long long all = GrowReduce64(tmp.reduce64).Sum((unsigned long long)gen);
    if (threadIdx.x == 0) tk::growPublish(p, all);
  }
  growAccount(p, began, g->n);
}

// ida_grow_order copies the last level (Grow.from) to Grow.to ordered by slack, the largest
// first: each block counts its nodes of each slack, takes a run of places for them in each
// (one add a slack), and places each node in its run.
extern "C" __global__ void __launch_bounds__(tk::kGrowBlock) ida_grow_order(tk::Pass* p, const tk::Tables*) {
  __shared__ uint32_t start[tk::kSlacks], mine[tk::kSlacks], base[tk::kSlacks];
  const long long began = clock64();
  tk::Grow* g = p->grow;
  if (threadIdx.x == 0) tk::slackStarts(g->slacks, start);
  for (uint32_t k = threadIdx.x; k < tk::kSlacks; k += blockDim.x) mine[k] = 0;
  __syncthreads();
  const uint32_t i = blockIdx.x * tk::kGrowBlock + threadIdx.x;
  uint32_t s = 0, rank = 0;
  if (i < g->n) {
    s = tk::slackOf(p, g->from[i]);
    rank = atomicAdd(&mine[s], 1u);
  }
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < tk::kSlacks; k += blockDim.x) {
    if (mine[k] != 0) base[k] = atomicAdd(&g->taken[k], mine[k]);
  }
  __syncthreads();
  if (i < g->n) {
    const uint32_t at = start[s] + base[s] + rank;
    if (at < g->cap) tk::growMove(p, g, i, at);
  }
  growAccount(p, began, g->n);
}

// A kind that grows has entry_grow_count and entry_grow_write (kinds.h's fourth column).
#define TK_GROW_0(entry, W)
#define TK_GROW_1(entry, W)                                                                                    \
  extern "C" __global__ void __launch_bounds__(tk::kGrowBlock) entry##_grow_count(tk::Pass* p, const tk::Tables* t) { \
    growCount<tk::W>(p, t);                                                                                    \
  }                                                                                                            \
  extern "C" __global__ void __launch_bounds__(tk::kGrowBlock) entry##_grow_write(tk::Pass* p, const tk::Tables* t) { \
    growWrite<tk::W>(p, t);                                                                                    \
  }
#define TK_GROW_ENTRY(entry, W, fn, grows) TK_GROW_##grows(entry, W)
TK_KINDS(TK_GROW_ENTRY)
#undef TK_GROW_ENTRY

// trap is a kernel that faults, for the tests of a failed launch; it takes ida_pass's
// arguments, so that it is launched the same way.
extern "C" __global__ void trap(tk::Pass* p, const tk::Tables* t) {
  if (p == nullptr || t != nullptr) __trap();
  __trap();
}
