// The GPU's IDA* pass (search.h): one persistent thread a worker, each taking roots until
// the pass is over. Compiled to PTX by go generate (gen.go).
#include "search.h"

// ida_pass searches one pass below the frontier p->roots with the tables t.
extern "C" __global__ void ida_pass(tk::Pass* p, const tk::Tables* t) {
  __shared__ tk::Tables st;
  // The tables are small but for the automaton, which stays in global memory.
  const uint8_t* src = reinterpret_cast<const uint8_t*>(t);
  uint8_t* dst = reinterpret_cast<uint8_t*>(&st);
  for (uint32_t i = threadIdx.x; i < sizeof(tk::Tables); i += blockDim.x) dst[i] = src[i];
  __syncthreads();

  tk::Worker w;
  w.active = false;
  w.idle = false;
  w.started = false;
  w.since = 0;
  w.polls = threadIdx.x;  // the threads of a block read the cancel flag at different polls
  w.rng = blockIdx.x * blockDim.x + threadIdx.x;
  bool over = false;
  long long begin = clock64(), busy = 0, took = 0;
  // An idle thread asks for work again after a wait that doubles up to 64 us, so that a
  // launch's idle threads do not crowd the busy ones' memory traffic.
  unsigned wait = 128;
  while (!over) {
    if (!w.active) {
      if (!tk::take(&w, p, &st, &over)) {
        if (!over) {
          __nanosleep(wait);
          wait = wait < 65536 ? 2 * wait : wait;
        }
        continue;
      }
      wait = 128;
      took = clock64();
    }
    if (tk::step(&w, p, &st, 1u << 20)) {
      tk::finish(&w, p);
      busy += clock64() - took;
    }
  }
  atomicAdd(&p->busy, (unsigned long long)busy);
  atomicAdd(&p->cycles, (unsigned long long)(clock64() - begin));
}

// trap is a kernel that faults, for the tests of a failed launch; it takes ida_pass's
// arguments, so that it is launched the same way.
extern "C" __global__ void trap(tk::Pass* p, const tk::Tables* t) {
  if (p == nullptr || t != nullptr) __trap();
  __trap();
}
