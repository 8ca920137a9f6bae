// The GPU's IDA* pass (search.h, set.h, cat.h): one persistent thread a worker, each taking roots
// until the pass is over. Compiled to PTX by go generate (internal/genptx).
#include "search.h"

// The step of each kind of search.
__device__ __forceinline__ int stepOf(tk::Worker* w, tk::Pass* p, const tk::Tables* t, uint32_t budget) {
  return tk::step(w, p, t, budget);
}
__device__ __forceinline__ int stepOf(tk::SetWorker* w, tk::Pass* p, const tk::Tables* t, uint32_t budget) {
  return tk::stepAll(w, p, t, budget);
}
__device__ __forceinline__ int stepOf(tk::CatWorker* w, tk::Pass* p, const tk::Tables* t, uint32_t budget) {
  return tk::stepAll(w, p, t, budget);
}

// run is a thread's loop: it takes roots and searches below them until the pass is over.
//
// A warp's threads go through the loop together, a turn at a time: those without a root
// look for one, those with one search at most a turn's expansions (tk::turn), and only a
// warp of which no thread holds a root sleeps. A thread never sleeps, nor waits in a branch
// of its own, while others of its warp search: the warp would wait with it (a sleeping
// branch of a divergent warp holds the warp's other branches too).
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
  w.rng = blockIdx.x * blockDim.x + threadIdx.x;
  bool over = false;
  long long begin = clock64(), busy = 0, took = 0;
  const unsigned warp = __activemask();  // the whole warp: blocks are whole warps
  const int lane = threadIdx.x & 31;
  const uint32_t budget = tk::turn(p);
  // The warp's threads that wait for work (each counted idle) ask for it through one of
  // them (tk::anyWork), so that thousands of idle threads do not crowd the lines that the
  // busy ones donate through; while the answer is no, it asks again after a wait that
  // doubles up to p->waitMax (64 us), and a warp with no root at all sleeps that long.
  // (The wait is kept alike in every thread of the warp: each acts on the asker's answer.)
  const unsigned waitMax = p->waitMax != 0 ? p->waitMax : 65536;
  unsigned wait = 128;
  long long askAt = 0;
  for (;;) {
    unsigned waiting = __ballot_sync(warp, !over && !w.active && w.idle);
    uint32_t any = 3;  // not asked this turn
    if (waiting != 0) {
      int asker = __ffs(waiting) - 1;
      long long now = 0;
      if (lane == asker) {
        now = clock64();
        if (now >= askAt) any = tk::anyWork(p);
      }
      any = __shfl_sync(warp, any, asker);
      now = __shfl_sync(warp, now, asker);
      if (any == 0) {
        askAt = now + 2 * (long long)wait;  // about wait ns: clocks are 1.1-2 GHz
        wait = wait < waitMax ? 2 * wait : waitMax;
      } else if (any == 1) {
        wait = 128;
        askAt = 0;
      }
    }
    if (!over && !w.active) {
      if (w.idle && any == 2) {
        over = true;
      } else if ((!w.idle || any == 1) && tk::take(&w, p, &st, &over)) {
        took = clock64();
      }
    }
    if (w.active && stepOf(&w, p, &st, budget)) {
      tk::finish(&w, p);
      busy += clock64() - took;
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
}

// ida_pass searches one pass below the frontier p->roots with the Manhattan distance.
extern "C" __global__ void __launch_bounds__(256, 4) ida_pass(tk::Pass* p, const tk::Tables* t) { run<tk::Worker>(p, t); }

// ida_pass_set searches one pass below the frontier p->roots with a set (set.h).
extern "C" __global__ void __launch_bounds__(256, 4) ida_pass_set(tk::Pass* p, const tk::Tables* t) { run<tk::SetWorker>(p, t); }

// ida_pass_cat searches one pass below the frontier p->roots with a catalogue of
// zero-aware tables (cat.h), each root starting from its seed (p->seeds).
extern "C" __global__ void __launch_bounds__(256, 4) ida_pass_cat(tk::Pass* p, const tk::Tables* t) { run<tk::CatWorker>(p, t); }

// trap is a kernel that faults, for the tests of a failed launch; it takes ida_pass's
// arguments, so that it is launched the same way.
extern "C" __global__ void trap(tk::Pass* p, const tk::Tables* t) {
  if (p == nullptr || t != nullptr) __trap();
  __trap();
}
