// The kernel's kinds of search, one line each: its entry (the kernel's name), the state of
// a thread (its worker), the step that searches below a root, and whether its frontier
// grows on the card (1: the kind's search is md.h's, and the kernels entry_grow_count and
// entry_grow_write expand a level with its distance, grow.h). Every list of kinds is
// made from this one: the entries (ida.cu), stepOf (below), the host build's and the fake
// driver's dispatch (host.cpp, fakecuda.cpp); package gpu has a row of each, in this order
// (kinds.go; TestKindsAreTheKernels holds both to the PTX's entries).
//
// A new kind: a header with its worker and step (md.h's Worker and step, set.h's SetWorker
// and stepAll are two shapes), included below, and a line here.
#ifndef TILEKIT_GPU_KINDS_H
#define TILEKIT_GPU_KINDS_H

#include "pass.h"
#include "md.h"
#include "set.h"
#include "cat.h"
#include "grow.h"

#define TK_KINDS(X)                      \
  X(ida_pass, Worker, step, 1)           \
  X(ida_pass_set, SetWorker, stepAll, 0) \
  X(ida_pass_cat, CatWorker, stepAll, 1) \
  TK_TEST_KINDS(X)

// The tests' own kinds, after the others: only in the tests' builds of the search for the
// host (-DTK_TEST), never in the PTX; package gpu's rows of them are in its tests
// (testKinds).
#ifdef TK_TEST
#include "blind.h"
#define TK_TEST_KINDS(X) X(ida_pass_blind, BlindWorker, step, 1)
#else
#define TK_TEST_KINDS(X)
#endif

namespace tk {

// stepOf runs one step of a thread of any kind: budget expansions at the most, taken from
// budget.
#define TK_STEP_OF(entry, W, fn, grows) \
  HD int stepOf(W* w, Pass* p, const Tables* t, uint32_t& budget) { return fn(w, p, t, budget); }
TK_KINDS(TK_STEP_OF)
#undef TK_STEP_OF

}  // namespace tk

#endif
