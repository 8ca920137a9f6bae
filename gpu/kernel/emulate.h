// A launch of the kernel on the host, for the host build (host.cpp) and the tests' fake
// driver (internal/fakegpu/testdata/fakecuda.cpp): the launch's threads as virtual threads, stepped in
// turn until the pass is over. Not part of the kernel (ida.cu does not include it): nvcc never
// sees it.
#pragma once

#include <string.h>

#include <memory>
#include <vector>

#include "kinds.h"

namespace tk {

// emulate steps threads virtual threads in turn, budget nodes a step, until the pass is
// over; p->busy and p->cycles count the steps as the kernel counts its threads' time. It
// returns the rounds it took: the launch's time, in steps of one thread.
//
// As the kernel's warps do (ida.cu), each group of 32 takes roots only between its turns:
// a turn ends once each of its threads with a root has searched turn nodes in it (or
// finished its root), and a thread that finishes its root early waits for the turn's end.
// turn 0 (or at most budget): every step is a turn.
template <class W>
static uint64_t emulate(Pass* p, const Tables* t, uint32_t threads, uint32_t budget, uint32_t turn = 0) {
  std::vector<W> ws(threads);
  std::vector<W*> lanes(threads);
  // over[k]: thread k is done (a bool array, for takeGroup); spent[k]: the nodes thread k
  // has had in its group's turn.
  std::unique_ptr<bool[]> over(new bool[threads]());
  std::vector<uint32_t> spent(threads);
  for (uint32_t k = 0; k < threads; k++) {
    memset(static_cast<void*>(&ws[k]), 0, sizeof ws[k]);
    lanes[k] = &ws[k];
  }
  if (turn < budget) turn = budget;
  uint32_t left = threads;
  uint32_t round = 0;
  for (; left > 0; round++) {
    // The kernel's warps: each group of 32 takes together (takeGroup) at the end of its
    // turn, then searches.
    for (uint32_t g = 0; g < threads; g += 32) {
      uint32_t n = threads - g < 32 ? threads - g : 32;
      bool ended = true;
      for (uint32_t k = g; k < g + n; k++) {
        if (ws[k].active && spent[k] < turn) ended = false;
      }
      if (ended) {
        takeGroup(&lanes[g], &over[g], n, p, t);
        for (uint32_t k = g; k < g + n; k++) spent[k] = 0;
      }
      for (uint32_t k = g; k < g + n; k++) {
        if (over[k]) continue;
        W* w = &ws[k];
        if (!w->active || spent[k] >= turn) continue;
        p->busy++;
        uint32_t b = turn - spent[k] < budget ? turn - spent[k] : budget;
        spent[k] += b;
        while (stepOf(w, p, t, b)) {
          finish(w, p);
          if (b == 0 || !takeOwn(w, p, t)) break;
        }
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

// emulateGrowCount, emulateGrowWrite and emulateGrowOrder run a level's launches of
// blocks blocks (grow.h) on the host, the kernel's blocks one after another: the count with
// the last block's scan, the write, and the final level's order.
template <class W>
static void emulateGrowCount(Pass* p, const Tables* t, uint32_t blocks) {
  Grow* g = p->grow;
  for (uint32_t b = 0; b < blocks; b++) {
    uint32_t sum = 0;
    for (uint32_t i = b * kGrowBlock; i < (b + 1) * kGrowBlock && i < g->n; i++) {
      Below w;
      g->counts[i] = Growth<W>::below(p, t, g, i, 0, 0, false, &w);
      sum += g->counts[i];
    }
    g->sums[b] = sum;
  }
  uint32_t carry = 0;
  for (uint32_t b = 0; b < blocks; b++) {
    uint32_t v = g->sums[b];
    g->sums[b] = carry;
    carry += v;
  }
  g->total = carry;
}

template <class W>
static void emulateGrowWrite(Pass* p, const Tables* t, uint32_t blocks) {
  Grow* g = p->grow;
  for (uint32_t b = 0; b < blocks; b++) {
    uint32_t off = g->sums[b];
    unsigned long long gens = 0;
    for (uint32_t i = b * kGrowBlock; i < (b + 1) * kGrowBlock && i < g->n; i++) {
      Below w;
      Growth<W>::below(p, t, g, i, off, off < g->cap ? g->cap - off : 0, true, &w);
      growCounted(p, g->from[i], w);
      if (g->slacks != nullptr) {
        for (uint32_t k = 0; k < g->counts[i] && off + k < g->cap; k++) g->slacks[slackOf(p, g->to[off + k])]++;
      }
      off += g->counts[i];
      gens += w.gen;
    }
    growPublish(p, gens);
  }
}

static void emulateGrowOrder(Pass* p, uint32_t blocks) {
  Grow* g = p->grow;
  uint32_t start[kSlacks];
  slackStarts(g->slacks, start);
  for (uint32_t i = 0; i < blocks * kGrowBlock && i < g->n; i++) {
    uint32_t s = slackOf(p, g->from[i]);
    uint32_t at = start[s] + g->taken[s]++;
    if (at < g->cap) growMove(p, g, i, at);
  }
}

}  // namespace tk
