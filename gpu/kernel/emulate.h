// A launch of the kernel on the host, for the host build (host.cpp) and the tests' fake
// driver (gpu/testdata/fakecuda.cpp): the launch's threads as virtual threads, stepped in
// turn until the pass is over. Not part of the kernel (ptxsrc.Sources): nvcc never sees it.
#pragma once

#include <string.h>

#include <vector>

#include "search.h"

namespace tk {

// stepOf runs one step of a thread of either loop: budget nodes at the most.
static inline int stepOf(Worker* w, Pass* p, const Tables* t, uint32_t budget) { return step(w, p, t, budget); }
static inline int stepOf(SetWorker* w, Pass* p, const Tables* t, uint32_t budget) { return stepAll(w, p, t, budget); }
static inline int stepOf(CatWorker* w, Pass* p, const Tables* t, uint32_t budget) { return stepAll(w, p, t, budget); }

// emulate steps threads virtual threads in turn, budget nodes a step, until the pass is
// over; p->busy and p->cycles count the steps as the kernel counts its threads' time. It
// returns the rounds it took: the launch's time, in steps of one thread.
template <class W>
static uint64_t emulate(Pass* p, const Tables* t, uint32_t threads, uint32_t budget) {
  std::vector<W> ws(threads);
  std::vector<bool> over(threads);
  for (uint32_t k = 0; k < threads; k++) {
    memset(static_cast<void*>(&ws[k]), 0, sizeof ws[k]);
    ws[k].rng = k;
  }
  // The kernel's warps: the idle threads of one (already counted idle) act on what one of
  // them reads of the pass (anyWork), here once a round for each group of 32.
  std::vector<uint32_t> answer((threads + 31) / 32), asked((threads + 31) / 32, ~0u);
  uint32_t left = threads;
  uint32_t round = 0;
  for (; left > 0; round++) {
    for (uint32_t k = 0; k < threads; k++) {
      if (over[k]) continue;
      W* w = &ws[k];
      if (!w->active && w->idle) {
        uint32_t g = k / 32;
        if (asked[g] != round) {
          asked[g] = round;
          answer[g] = anyWork(p);
        }
        if (answer[g] == 2) {
          over[k] = true;
          left--;
          continue;
        }
        if (answer[g] == 0) continue;
      }
      if (!w->active) {
        bool done = false;
        if (!take(w, p, t, &done)) {
          if (done) {
            over[k] = true;
            left--;
          }
          continue;
        }
      }
      p->busy++;
      if (stepOf(w, p, t, budget)) finish(w, p);
    }
    p->cycles += left;
  }
  return round;
}

}  // namespace tk
