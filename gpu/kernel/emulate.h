// A launch of the kernel on the host, for the host build (host.cpp) and the tests' fake
// driver (gpu/testdata/fakecuda.cpp): the launch's threads as virtual threads, stepped in
// turn until the pass is over. Not part of the kernel (ptxsrc.Sources): nvcc never sees it.
#pragma once

#include <string.h>

#include <memory>
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
  std::vector<W*> lanes(threads);
  // over[k]: thread k is done (a bool array, for takeGroup).
  std::unique_ptr<bool[]> over(new bool[threads]());
  for (uint32_t k = 0; k < threads; k++) {
    memset(static_cast<void*>(&ws[k]), 0, sizeof ws[k]);
    lanes[k] = &ws[k];
  }
  uint32_t left = threads;
  uint32_t round = 0;
  for (; left > 0; round++) {
    // The kernel's warps: each group of 32 takes together (takeGroup), then searches.
    for (uint32_t g = 0; g < threads; g += 32) {
      uint32_t n = threads - g < 32 ? threads - g : 32;
      takeGroup(&lanes[g], &over[g], n, p, t);
      for (uint32_t k = g; k < g + n; k++) {
        if (over[k]) continue;
        W* w = &ws[k];
        if (!w->active) continue;
        p->busy++;
        if (stepOf(w, p, t, budget)) finish(w, p);
      }
    }
    left = 0;
    for (uint32_t k = 0; k < threads; k++) left += !over[k];
    p->cycles += left;
  }
  for (uint32_t k = 0; k < threads; k++) {
    p->claims += ws[k].claims;
    p->misses += ws[k].misses;
  }
  return round;
}

}  // namespace tk
