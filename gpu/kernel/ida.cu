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
  // An idle thread asks for work again after a wait that doubles up to p->waitMax (64 us),
  // so that a launch's idle threads do not crowd the busy ones' memory traffic.
  const unsigned waitMax = p->waitMax != 0 ? p->waitMax : 65536;
  unsigned wait = 128;
  while (!over) {
    if (!w.active) {
      if (w.idle) {
        // Counted idle already: one of the warp's idle threads reads the pass's state for
        // all of them, so that thousands of idle threads do not crowd the lines that the
        // busy ones donate through.
        unsigned m = __activemask();
        int leader = __ffs(m) - 1;
        uint32_t any = 0;
        if ((int)(threadIdx.x & 31) == leader) any = tk::anyWork(p);
        any = __shfl_sync(m, any, leader);
        if (any == 2) {
          over = true;
          continue;
        }
        if (any == 0) {
          __nanosleep(wait);
          wait = wait < waitMax ? 2 * wait : waitMax;
          continue;
        }
      }
      if (!tk::take(&w, p, &st, &over)) {
        if (!over) {
          __nanosleep(wait);
          wait = wait < waitMax ? 2 * wait : waitMax;
        }
        continue;
      }
      wait = 128;
      took = clock64();
    }
    if (stepOf(&w, p, &st, 1u << 20)) {
      tk::finish(&w, p);
      busy += clock64() - took;
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
