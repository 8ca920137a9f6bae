// The GPU's pass: IDA* below the subtrees of one pass, one subtree a thread, with busy
// threads donating unexplored siblings to idle ones. It keeps ida's node protocol
// (docs/SEARCH.md) node for node: the order of children, when a node counts as generated
// and as expanded, the move back and the automaton, the goal test. The same code compiles
// for the GPU (nvcc, ida.cu) and as host C++ (g++, host.cpp), where a test runs the scheme
// with many virtual threads stepped in turn and compares it with ida.
//
// What a thread does:
//   1. It takes a root: a donated node from the queue, else the next frontier node, claimed
//      for its group of threads at once (claim), else it waits, idle, until work is
//      donated or every thread is idle.
//   2. It searches below the root depth first, its path kept as a stack of frames. A child
//      is generated (counted) when made, searched if g + 1 + h <= bound; h == 0 within the
//      bound is the goal: the root's subtree (its serial index) is offered as the earliest
//      solving one (atomic minimum).
//   3. While threads are idle, at most every pollEvery expansions, it donates: the unexplored
//      children of its shallowest node that has some are generated there and pushed as roots
//      of the same subtree, and that node is done.
//   4. A root whose subtree is later than the earliest solving one is abandoned. Its work and
//      every other root's is added to its subtree's counts.
//   (With a set's inconsistent values, a donated node's search could change its donor's
//   through BPMX: set.h says how the host learns where it would have.)
// Counts of subtrees before the earliest solving one are therefore complete and the serial
// search's; the solving subtree is searched again on the CPU for its moves and counts.
#ifndef TILEKIT_GPU_PASS_H
#define TILEKIT_GPU_PASS_H

#include <stdint.h>

#ifdef __CUDACC__
#define HD __host__ __device__ __forceinline__
#else
#define HD inline
#endif

namespace tk {

enum : uint32_t { kMaxCells = 25, kMaxDepth = 256, kPruned = 0xFFFFFFFFu };

// The values (Pass.value) of a subtree whose search on the device is not the serial one,
// which the host splits further: its thread gave it up (Pass.giveUpAt), or a part of it
// donated would have cut its donor's node (kRaised: the part's value rose above its
// Root.thr, or a node whose children were donated was cut).
enum : int32_t { kGivenUp = -1, kRaised = -2 };

// kOwner is the Root.thr of a frontier node: its thread owns the subtree's value.
enum : uint8_t { kOwner = 0xFF };

// Root is a node to search below: a frontier node, or a donated one.
struct Root {
  uint8_t board[kMaxCells];  // the tile on each cell (the blank's cell holds 0)
  uint8_t blank;             // the blank's cell
  uint8_t g;                 // depth
  uint8_t h;                 // heuristic value, as its parent computed it
  uint32_t state;            // the pruning automaton's
  uint32_t sub;              // the serial index of its subtree
  // A donated node's: the most its value may return as BPMX leaves it without cutting its
  // donor's node (set.h); kOwner for a frontier node.
  uint8_t thr;
  uint8_t pad[3];
};

// The most lookups, partitions and lookups of one tile of a set or catalogue in Tables
// (a catalogue's, cat.h), and of a set that is not zero-aware (set.h, whose frames hold
// every lookup).
enum : uint32_t { kMaxLook = 64, kMaxPart = 32, kMaxTouch = 16 };
enum : uint32_t { kSetLook = 8, kSetPart = 4, kSetTouch = 4 };

// ZScheme is a zero-aware table's index scheme (package zindex, scheme zperm-v1): the
// board's cells and the pattern's tiles, k!, each tile's weight in the order's rank, the
// binomial coefficients, and per map its first region's number with the cells of region
// 1 (mapInfo: bit 31 of the high word marks a map of more regions, read from region).
struct ZScheme {
  uint32_t n, k, fact, pad;
  uint32_t weight[8];
  uint32_t binom[kMaxCells + 1][kMaxCells + 1];
  const unsigned long long* mapInfo;
  const uint8_t* region;  // region[m*n + c]
};

// SetLook is one lookup of a set or a catalogue: the state's tiles it reads in the table's
// index order and the map from the state's cells to the table's, for a table stored
// through a mirror the image's too, and the table: 4-bit half excesses, and the entries
// they cannot hold (escIdx ascending, escVal the whole entry); or, in the bit encoding,
// bit 1 of each entry. A zero-aware table's index is stepped from its ranks (zs), for
// which inv is the state's cell of each of the table's cells and num each tile's number
// in the lookup.
struct SetLook {
  const uint8_t* nib;
  const uint32_t* escIdx;
  const uint8_t* escVal;
  uint32_t nesc;
  uint8_t k, mirror, zero, inBits;
  uint8_t tiles[8], mtiles[8];
  uint8_t cell[kMaxCells], mcell[kMaxCells];
  uint8_t inv[kMaxCells], num[kMaxCells];
  const uint8_t* bits;
  const ZScheme* zs;
};

// Tables are what every thread reads: the board's moves in ida's order, the Manhattan
// distances and the pruning automaton, in the solver's frame; for a set, its lookups and
// partitions (set.h).
struct Tables {
  uint32_t cells;
  uint8_t nmoves[kMaxCells];
  uint8_t mcell[kMaxCells][4];  // the cell the blank goes to, in move order
  uint8_t mdir[kMaxCells][4];   // its direction (U D L R = 0 1 2 3)
  uint8_t md[kMaxCells][kMaxCells];
  const uint32_t* fsm;  // fsm[s*4+d]: the state after move d from s, or kPruned
  // A set: nl lookups in np partitions. of[t][p] is the lookup of partition p that holds
  // tile t, slot[t][p] its place in touch[t], the ntouch[t] distinct lookups that hold t.
  uint32_t nl, np;
  SetLook look[kMaxLook];
  uint8_t of[kMaxCells][kMaxPart];
  uint8_t slot[kMaxCells][kMaxPart];
  uint8_t touch[kMaxCells][kMaxTouch];
  uint8_t ntouch[kMaxCells];
};

struct Grow;  // grow.h

// Pass is one launch's shared state, in device memory (mapped host memory for cancel).
struct Pass {
  // Set by the host before the launch; read by every thread.
  uint32_t bound;
  uint32_t cap;       // the queue's slots
  const Root* roots;  // the frontier, in the order the threads take it (each with its serial index)
  uint32_t nroots;
  uint32_t donateAfter;     // expansions a thread makes below a root before it donates
  unsigned long long* gen;  // per subtree: nodes generated
  unsigned long long* exp;  // per subtree: nodes expanded
  // The queue of donated roots: a ring of cap slots; seq[i % cap] == i + 1 once slot i
  // is written.
  Root* queue;
  uint32_t* seq;
  unsigned long long limit;   // stop once nodes reaches it (0: no limit)
  volatile uint32_t* cancel;  // set by the host to cancel
  int32_t* value;             // per subtree: its root's value as BPMX left it (sets)
  // A catalogue's: each frontier root's lookups (cat.h), seedStride bytes a root, and the
  // donated roots', a slot of the queue each.
  const uint8_t* seeds;
  uint8_t* qseeds;
  uint32_t seedStride;
  uint32_t pollEvery;  // expansions between a thread's polls (0: kPollEvery)
  uint32_t waitMax;    // the longest an idle warp sleeps between asks, in ns (0: 65,536)
  uint32_t turn;       // expansions a thread makes a turn before its warp looks for work again (0: kTurn)
  unsigned long long* hash;  // the tests' (TK_HASH): per subtree, the sum of a hash of each expanded board
  Grow* grow;                // the level the frontier's growth expands (grow.h; the search's launch ignores it)
  // What a busy thread reads at every poll, on a cache line of its own: apart from the
  // lines the idle threads ask again and again, so that their asking does not slow it.
  alignas(128) int32_t best;  // the earliest solving subtree (nroots: none yet)
  uint32_t stop;              // set to end the launch: cancelled, or the node limit
  // The sets' and catalogues' (0 for the others): the nodes a thread generates below a
  // root before it gives the root up, its value kGivenUp, for the host to split it further
  // (0: never).
  unsigned long long giveUpAt;
  uint32_t donateMost;   // the most roots a thread donates a poll (0: kDonateMost)
  uint32_t donateAbove;  // how far above the bound a node must be to donate its children (0: kDonateAbove)
  uint32_t keep;         // the roots a thread with a large root keeps the queue at, idle threads or none (donateBudget)
  // The frontier's counter, the queue's ends, and the idle threads, each on its own line.
  alignas(128) uint32_t next;  // the next frontier node to take
  alignas(128) uint32_t head;
  uint32_t tail;
  alignas(128) uint32_t idle;  // threads waiting for work
  uint32_t threads;            // threads that have started (each counts itself at its first take)
  // Counters.
  alignas(128) unsigned long long nodes;  // generated so far, published every pollEvery expansions
  unsigned long long donated;             // roots donated
  unsigned long long busy;                // clock cycles the threads held a root (turns, on the host)
  unsigned long long cycles;              // clock cycles of the threads in all (turns, on the host)
  unsigned long long claims;              // claims that took roots (claim), for a group of threads each
  unsigned long long misses;              // claims that took none
};

// kDonor marks a frame of the sets' and catalogues' loop (its entered) whose children
// were given away (donateSet, donateCat).
enum : uint8_t { kDonor = 2 };

// Frame is one node of a thread's path.
struct Frame {
  uint32_t state;
  uint8_t blank, next, h, pad;
};

// WorkerBase is what every kind of thread's search keeps (Worker, SetWorker).
struct WorkerBase {
  uint8_t board[kMaxCells];
  uint32_t g0, g;  // the root's depth, and the current node's
  uint32_t sub;
  uint8_t thr;     // the root's Root.thr
  bool active;     // a root is being searched
  bool idle;       // counted in Pass.idle
  bool started;    // counted in Pass.threads
  unsigned long long gen, exp;  // of the current root
  unsigned long long pub;       // how much of gen is counted in Pass.nodes
  uint32_t since;  // expansions since the last poll
  uint32_t polls;  // polls so far
  unsigned long long mark;  // exp when the root was taken, or work last donated
  unsigned long long claims, misses;  // the claims this thread made for its group (Pass.claims)
#ifdef TK_HASH
  unsigned long long hash;
#endif
};

#ifdef TK_HASH
// boardHash is a hash of a board (FNV-1a, then a final mix): the tests sum it over the
// expanded nodes, a fingerprint of the set of nodes that does not depend on their order.
inline unsigned long long boardHash(const uint8_t* b, uint32_t cells) {
  unsigned long long h = 1469598103934665603ull;
  for (uint32_t c = 0; c < cells; c++) {
    h ^= b[c];
    h *= 1099511628211ull;
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h;
}
#define TK_EXPANDED(w, cells) ((w)->hash += boardHash((w)->board, (cells)))
#else
#define TK_EXPANDED(w, cells)
#endif

// A thread polls every kPollEvery expansions (publishes its nodes for the limit, reads
// the stop flag, donates), and reads the host's cancel flag (across the bus) every
// kCancelEvery polls.
//
// A thread searches at most kTurn expansions a turn; between turns, its warp's threads
// without a root look for one (ida.cu). An idle thread waits for work about as long as a
// turn and a poll: in the emulation of an H100's threads (emulate.h, the fake driver),
// turns and polls of 32 expansions (and Pass.donateAfter 32) took 2.4-3.4 times fewer
// steps than 256 and 128 on passes of Korf's 100 with md, 2.8 times fewer on k24-40 with
// 6-6-6-6; with the frontier grown on the card, polls of 16 and Pass.donateAfter 8 took
// 1.2-1.4 times fewer than 32 and 32 (docs/RESULTS.md). A root is large (donateBudget)
// after kLarge times Pass.donateAfter expansions.
enum : uint32_t { kPollEvery = 16, kCancelEvery = 4096, kDonateAbove = 6, kDonateMost = 8, kLarge = 8 };
enum : uint32_t { kTurn = 32 };

// pollEvery is p's expansions between polls.
HD uint32_t pollEvery(const Pass* p) { return p->pollEvery != 0 ? p->pollEvery : kPollEvery; }

// turn is p's expansions a turn.
HD uint32_t turn(const Pass* p) { return p->turn != 0 ? p->turn : kTurn; }

// TK_MOVE is the index in move order of a node's i-th child of n; the tests build a
// perturbed search (TK_PERTURB: the children in reverse order) to see that they notice.
#ifdef TK_PERTURB
#define TK_MOVE(i, n) ((n) - 1 - (i))
#else
#define TK_MOVE(i, n) (i)
#endif

// The atomics: the device's on the GPU; GCC's on the host, where the virtual threads are
// stepped in turn or run as real threads (host.cpp).
#ifdef __CUDA_ARCH__
__device__ __forceinline__ uint32_t atomAdd(uint32_t* p, uint32_t v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned long long atomAdd64(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
__device__ __forceinline__ uint32_t atomCAS(uint32_t* p, uint32_t c, uint32_t v) { return atomicCAS(p, c, v); }
__device__ __forceinline__ int32_t atomMin(int32_t* p, int32_t v) { return atomicMin(p, v); }
__device__ __forceinline__ int32_t atomCASi(int32_t* p, int32_t c, int32_t v) { return atomicCAS(p, c, v); }
__device__ __forceinline__ int32_t atomExchi(int32_t* p, int32_t v) { return atomicExch(p, v); }
__device__ __forceinline__ uint32_t atomSub(uint32_t* p, uint32_t v) { return atomicSub(p, v); }
__device__ __forceinline__ uint32_t vload(const uint32_t* p) { return *(volatile const uint32_t*)p; }
__device__ __forceinline__ int32_t vloadi(const int32_t* p) { return *(volatile const int32_t*)p; }
__device__ __forceinline__ void vstore(uint32_t* p, uint32_t v) { *(volatile uint32_t*)p = v; }
__device__ __forceinline__ void fence() { __threadfence(); }
#else
inline uint32_t atomAdd(uint32_t* p, uint32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomAdd64(unsigned long long* p, unsigned long long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline uint32_t atomCAS(uint32_t* p, uint32_t c, uint32_t v) {
  __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return c;  // the old value: c itself when it matched, else what was there
}
inline int32_t atomMin(int32_t* p, int32_t v) {
  int32_t o = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v < o && !__atomic_compare_exchange_n(p, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return o;
}
inline int32_t atomCASi(int32_t* p, int32_t c, int32_t v) {
  __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return c;
}
inline int32_t atomExchi(int32_t* p, int32_t v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline uint32_t atomSub(uint32_t* p, uint32_t v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
inline uint32_t vload(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
inline int32_t vloadi(const int32_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
inline void vstore(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
inline void fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif

// used returns how many roots the queue holds, from the tail and the head read in that
// order: the head may have passed the tail read before it (others pushed and popped in
// between), which counts as empty, never as a wrapped-around full queue.
HD uint32_t used(uint32_t tail, uint32_t head) {
  int32_t n = (int32_t)(tail - head);
  return n < 0 ? 0 : (uint32_t)n;
}

}  // namespace tk

#include "work.h"

#endif
