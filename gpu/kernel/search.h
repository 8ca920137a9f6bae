// The search of package gpu: IDA* below the subtrees of one pass, one subtree a thread, with
// busy threads donating unexplored siblings to idle ones. It keeps ida's node protocol
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
#ifndef TILEKIT_GPU_SEARCH_H
#define TILEKIT_GPU_SEARCH_H

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

// Pass is one launch's shared state, in device memory (mapped host memory for cancel).
struct Pass {
  // Set by the host before the launch; read by every thread.
  uint32_t bound;
  uint32_t cap;       // the queue's slots
  const Root* roots;  // the frontier, in serial order
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
  const uint32_t* order;      // the frontier's roots in the order to take them (null: in order)
  // A catalogue's: each frontier root's lookups (cat.h), seedStride bytes a root, and the
  // donated roots', a slot of the queue each.
  const uint8_t* seeds;
  uint8_t* qseeds;
  uint32_t seedStride;
  uint32_t pollEvery;  // expansions between a thread's polls (0: kPollEvery)
  uint32_t waitMax;    // the longest an idle warp sleeps between asks, in ns (0: 65,536)
  uint32_t turn;       // expansions a thread makes a turn before its warp looks for work again (0: kTurn)
  unsigned long long* hash;  // the tests' (TK_HASH): per subtree, the sum of a hash of each expanded board
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

// Worker is one thread's search with the Manhattan distance.
struct Worker : WorkerBase {
  Frame f[kMaxDepth];
};

// frameOf is w's frame of the node at depth g.
HD Frame* frameOf(Worker* w, uint32_t g) { return &w->f[g]; }

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
// 6-6-6-6 (docs/RESULTS.md).
enum : uint32_t { kPollEvery = 32, kCancelEvery = 2048, kDonateAbove = 6, kDonateMost = 8 };
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

// boardAt writes to out the board of w's node at depth d, from the current node's at depth
// g: the moves below it undone (frameOf: each kind's frames).
template <class W>
HD void boardAt(W* w, uint32_t g, uint32_t d, uint8_t* out) {
  for (uint32_t c = 0; c < kMaxCells; c++) out[c] = w->board[c];
  for (uint32_t k = g; k > d; k--) {
    uint8_t b = frameOf(w, k)->blank, pb = frameOf(w, k - 1)->blank;
    out[b] = out[pb];
    out[pb] = 0;
  }
}

// cutLimit is the Root.thr of a child donated by a node at depth d: the most the child's
// value may return as BPMX leaves it without cutting the node (d + v - 1 > bound).
HD uint8_t cutLimit(const Pass* p, uint32_t d) { return (uint8_t)(p->bound - d + 1); }

// childRoot is the root donated for the child of the node whose board is board: tile on
// cell q slides into the blank's cell blank, the child at depth g with value h and
// automaton state state, below subtree sub, its value to return at most thr (Root.thr).
HD Root childRoot(const uint8_t* board, uint8_t blank, uint8_t q, uint8_t tile, uint32_t g, uint8_t h, uint32_t state, uint32_t sub,
                  uint8_t thr) {
  Root c;
  for (uint32_t i = 0; i < kMaxCells; i++) c.board[i] = board[i];
  c.board[blank] = tile;
  c.board[q] = 0;
  c.blank = q;
  c.g = (uint8_t)g;
  c.h = h;
  c.state = state;
  c.sub = sub;
  c.thr = thr;
  return c;
}

// push adds a donated root to the queue: one atomic, however many threads push at once. The
// donor has made sure of the room (donate): every thread together pushes at most
// donateMost + 3 roots a poll.
HD void push(Pass* p, const Root& r, const uint8_t* seed = nullptr) {
  uint32_t t = atomAdd(&p->tail, 1);
  p->queue[t % p->cap] = r;
  if (seed != nullptr) {
    uint8_t* to = p->qseeds + (unsigned long long)(t % p->cap) * p->seedStride;
    for (uint32_t i = 0; i < p->seedStride; i++) to[i] = seed[i];
  }
  fence();
  vstore(&p->seq[t % p->cap], t + 1);
  fence();
}

// begin sets up what every kind of search keeps to search below r.
HD void begin(WorkerBase* w, const Root& r, uint32_t cells) {
  for (uint32_t c = 0; c < kMaxCells; c++) w->board[c] = r.board[c];
  w->g0 = w->g = r.g;
  w->sub = r.sub;
  w->thr = r.thr;
  w->gen = 0;
  w->pub = 0;
  w->exp = 1;  // the root is expanded
  w->mark = 0;
  w->active = true;
#ifdef TK_HASH
  w->hash = 0;
#endif
  TK_EXPANDED(w, cells);
  (void)cells;
}

// start sets w up to search below r (seed: its lookups under a catalogue, cat.h).
HD void start(Worker* w, const Root& r, const Tables* t, const Pass*, const uint8_t*) {
  begin(w, r, t->cells);
  Frame& f = w->f[r.g];
  f.state = r.state;
  f.blank = r.blank;
  f.next = 0;
  f.h = r.h;
}

// result records what a search leaves beside its counts: nothing, with the Manhattan
// distance (its values are consistent: BPMX raises none).
HD void result(Worker*, Pass*) {}

// publish adds w's nodes generated since it last did to the pass's count, and stops the
// pass at the node limit.
HD void publish(WorkerBase* w, Pass* p) {
  unsigned long long n = w->gen - w->pub;
  if (n == 0 || p->limit == 0) return;
  w->pub = w->gen;
  unsigned long long total = atomAdd64(&p->nodes, n) + n;
  if (p->limit != 0 && total >= p->limit) vstore(&p->stop, 1);
}

// A subtree's value (Pass.value, zeroed before the launch) is its frontier node's as BPMX
// left it, written by the thread that owns it, unless a thread marks the subtree as not
// searched as the serial search would (kGivenUp, kRaised), which no later write undoes.

// spoil marks subtree sub with why (kGivenUp or kRaised).
HD void spoil(Pass* p, uint32_t sub, int32_t why) {
  if (p->value != nullptr) atomExchi(&p->value[sub], why);
}

// putValue records value, the value as BPMX left it of the root of w's search: the
// subtree's, from the thread that owns it; from a donated root's, kRaised where it rose
// above what leaves its donor's node uncut (Root.thr).
HD void putValue(const WorkerBase* w, Pass* p, int32_t value) {
  if (p->value == nullptr) return;
  if (value < 0) {
    spoil(p, w->sub, value);
    return;
  }
  if (w->thr != kOwner) {
#ifndef TK_UNCHECKED  // the tests' build that trusts every donated part, to see that they notice
    if (value > (int32_t)w->thr) spoil(p, w->sub, kRaised);
#endif
    return;
  }
  int32_t* v = &p->value[w->sub];
  for (int32_t old = vloadi(v); old >= 0;) {
    int32_t o = atomCASi(v, old, value);
    if (o == old) break;
    old = o;
  }
}

// finish adds the current root's work to its subtree's counts.
template <class W>
HD void finish(W* w, Pass* p) {
  publish(w, p);
  result(w, p);
  atomAdd64(&p->gen[w->sub], w->gen);
  atomAdd64(&p->exp[w->sub], w->exp);
#ifdef TK_HASH
  atomAdd64(&p->hash[w->sub], w->hash);
#endif
  w->active = false;
}

// Threads take roots a group at a time: a warp's on the GPU (ida.cu), 32 virtual threads'
// in the emulation (emulate.h), one real thread's in the racing test (host.cpp). One
// thread of the group claims roots for all its threads without one, by one compare-and-swap
// on the queue's head and one add on the frontier's counter, however many it takes. A pass
// on the GPU is bound by how fast roots are handed out (most are small: docs/RESULTS.md,
// "The device check on an H200"), and a claim for each thread, by a compare-and-swap that
// thousands of threads retry, handed out about 100,000 a second.

// Claim is what one claim took: nq donated roots, the queue's slots q, q+1, ..., then nf
// frontier nodes from the frontier's place f on.
struct Claim {
  uint32_t q, nq, f, nf;
};

// claim takes at most n roots: donated ones first (the queue's head moved past them at
// once; tried twice, for another group may take at the same time), then frontier nodes;
// none once the pass is stopped.
HD Claim claim(Pass* p, uint32_t n) {
  Claim c = {0, 0, 0, 0};
  if (vload(&p->stop)) return c;  // stopped: nothing more to search (passOver then says so)
  for (int tries = 0; tries < 2 && n > 0; tries++) {
    // The head read before the tail: the slots between were pushed (or are being written).
    uint32_t h = vload(&p->head);
    uint32_t q = used(vload(&p->tail), h);
    if (q == 0) break;
    uint32_t k = q < n ? q : n;
    if (atomCAS(&p->head, h, h + k) == h) {
      c.q = h;
      c.nq = k;
      break;
    }
  }
  n -= c.nq;
  if (n > 0 && vload(&p->next) < p->nroots) {
    uint32_t i = atomAdd(&p->next, n);
    if (i < p->nroots) {
      c.f = i;
      c.nf = p->nroots - i < n ? p->nroots - i : n;
    }
  }
  return c;
}

// claimed reads the k-th root of c (k < c.nq + c.nf) and, under a catalogue, its lookups
// (seed): a donated one once its pusher has written it, else a frontier node.
HD void claimed(Pass* p, const Claim& c, uint32_t k, Root* r, const uint8_t** seed) {
  *seed = nullptr;
  if (k < c.nq) {
    uint32_t h = c.q + k;
    while (vload(&p->seq[h % p->cap]) != h + 1) {
      // taken by a pusher that is still writing it: wait for it
    }
    fence();
    // Read past the multiprocessor's cache: the slot may hold an older root there.
    const volatile uint32_t* src = reinterpret_cast<const volatile uint32_t*>(&p->queue[h % p->cap]);
    uint32_t* dst = reinterpret_cast<uint32_t*>(r);
    for (uint32_t i = 0; i < sizeof(Root) / 4; i++) dst[i] = src[i];
    if (p->qseeds != nullptr) *seed = p->qseeds + (unsigned long long)(h % p->cap) * p->seedStride;
    return;
  }
  uint32_t i = c.f + (k - c.nq);
  uint32_t idx = p->order != nullptr ? p->order[i] : i;
  *r = p->roots[idx];
  if (p->seeds != nullptr) *seed = p->seeds + (unsigned long long)idx * p->seedStride;
}

// passOver says whether the pass is over for a group that found no root, its threads
// without one already counted in Pass.idle: stopped, or every thread that started idle, the
// queue empty and the frontier handed out. (A thread that has a root but is still counted
// idle only delays its own count: it searches that root, and whatever it donates it takes
// back itself. A thread that has not started holds no work, and finds none when it starts:
// so the launch may hold more threads than can run at once.)
HD bool passOver(Pass* p) {
  if (vload(&p->stop)) return true;
  return vload(&p->idle) == vload(&p->threads) && vload(&p->head) >= vload(&p->tail) && vload(&p->next) >= p->nroots;
}

// takeGroup is a group's take on the host (emulate.h, host.cpp), as the kernel's warp takes
// (ida.cu): the threads ws[0..n) without a root and not over (over[k]) take what one claim
// gives them, in order, a root of a later subtree than the earliest solving one left
// unsearched; those that get none are idle (Pass.idle), and over once the pass is.
template <class W>
HD void takeGroup(W** ws, bool* over, uint32_t n, Pass* p, const Tables* t) {
  uint32_t want = 0, fresh = 0, first = n;
  for (uint32_t k = 0; k < n; k++) {
    if (over[k] || ws[k]->active) continue;
    if (first == n) first = k;
    want++;
    if (!ws[k]->started) {
      ws[k]->started = true;
      fresh++;
    }
  }
  if (want == 0) return;
  if (fresh > 0) atomAdd(&p->threads, fresh);
  Claim c = claim(p, want);
  uint32_t got = c.nq + c.nf, j = 0;
  int32_t delta = 0;
  for (uint32_t k = 0; k < n; k++) {
    W* w = ws[k];
    if (over[k] || w->active) continue;
    if (j < got) {
      Root r;
      const uint8_t* seed;
      claimed(p, c, j++, &r, &seed);
      if ((int32_t)r.sub <= vloadi(&p->best)) {
        start(w, r, t, p, seed);
        if (w->idle) {
          w->idle = false;
          delta--;
        }
        continue;
      }
      // A later subtree than the earliest solving one: nothing to search.
    }
    if (!w->idle) {
      w->idle = true;
      delta++;
    }
  }
  if (delta != 0) atomAdd(&p->idle, (uint32_t)delta);
  if (got > 0) {
    ws[first]->claims++;
    return;
  }
  ws[first]->misses++;
  if (!passOver(p)) return;
  for (uint32_t k = 0; k < n; k++) {
    if (!ws[k]->active) over[k] = true;
  }
}

// donateMost is the most roots a thread donates a poll.
HD uint32_t donateMost(const Pass* p) { return p->donateMost != 0 ? p->donateMost : kDonateMost; }

// donateAbove is how far above the bound a node must be for its children to be donated.
HD uint32_t donateAbove(const Pass* p) { return p->donateAbove != 0 ? p->donateAbove : kDonateAbove; }

// donateBudget is how many roots w may donate now (0: none): while threads are idle and
// the queue holds fewer roots than they, once w has searched donateAfter nodes below its
// root since it took it or last donated, at most donateMost, if the queue has room for
// what every thread may push at once.
HD uint32_t donateBudget(WorkerBase* w, Pass* p) {
  if (w->exp - w->mark < p->donateAfter) return 0;  // a small root: finish it
  uint32_t want = vload(&p->idle);
  if (want == 0) return 0;
  uint32_t queued = used(vload(&p->tail), vload(&p->head));
  if (queued >= want) return 0;
  uint32_t most = donateMost(p);
  if (queued + vload(&p->threads) * (most + 3) >= p->cap) return 0;
  w->mark = w->exp;
  return want - queued < most ? want - queued : most;
}

// donate gives away unexplored children while threads are idle and the queue holds fewer
// roots than they, once w has searched donateAfter nodes below its root since it took it
// or last donated (a thread with a small root finishes it): from w's shallowest node that
// has children left, then the next ones down, at most donateMost roots a time (and the
// rest of the last node's children), and only from nodes donateAbove moves or more above
// the bound (smaller subtrees are not worth a trip through the queue). A node's children
// are generated there, as its own search would generate them, and pushed as roots of the
// same subtree; the node is then done. It reports whether the search found the goal among
// them.
HD bool donate(Worker* w, Pass* p, const Tables* t) {
  uint32_t budget = donateBudget(w, p);
  if (budget == 0) return false;
  bool found = false;
  for (uint32_t d = w->g0; d < w->g && budget > 0; d++) {
    Frame& f = w->f[d];
    if (f.next >= t->nmoves[f.blank]) continue;
    if (p->bound - d < donateAbove(p)) break;
    // The node's board: undo the moves below it.
    uint8_t board[kMaxCells];
    boardAt(w, w->g, d, board);
    for (; f.next < t->nmoves[f.blank]; f.next++) {
      uint8_t i = TK_MOVE(f.next, t->nmoves[f.blank]);
      uint32_t ns = t->fsm[f.state * 4 + t->mdir[f.blank][i]];
      if (ns == kPruned) continue;
      uint8_t q = t->mcell[f.blank][i];
      uint8_t tile = board[q];
      int nh = (int)f.h + t->md[tile][f.blank] - t->md[tile][q];
      if (d + 1 + nh <= p->bound && nh != 0) {
        push(p, childRoot(board, f.blank, q, tile, d + 1, (uint8_t)nh, ns, w->sub, cutLimit(p, d)));
        atomAdd64(&p->donated, 1);
        if (budget > 0) budget--;
      }
      w->gen++;  // generated here, once
      if (d + 1 + nh <= p->bound && nh == 0) found = true;
    }
  }
  return found;
}

// poll publishes w's nodes, checks the cancel flag, and donates while threads are idle.
// It reports whether w's search found the goal while donating.
HD bool poll(Worker* w, Pass* p, const Tables* t) {
  w->since = 0;
  publish(w, p);
  if (p->cancel != 0 && ++w->polls % kCancelEvery == 0 && *p->cancel != 0) vstore(&p->stop, 1);
  return donate(w, p, t);
}

// step searches below w's root for at most budget expansions. It returns 1 when the root's
// subtree is done (searched, found the goal, or abandoned), 0 when it has more to do.
HD int step(Worker* w, Pass* p, const Tables* t, uint32_t budget) {
  const uint32_t bound = p->bound, every = pollEvery(p);
  uint32_t g = w->g;
  while (budget-- > 0) {
    Frame* f = &w->f[g];
    if (f->next >= t->nmoves[f->blank]) {
      // The node is done: back to its parent.
      if (g == w->g0) {
        w->g = g;
        return 1;
      }
      uint8_t b = f->blank, pb = w->f[g - 1].blank;
      w->board[b] = w->board[pb];
      w->board[pb] = 0;
      g--;
      budget++;  // a return is no expansion
      continue;
    }
    uint8_t i = TK_MOVE(f->next, t->nmoves[f->blank]);
    f->next++;
    uint32_t ns = t->fsm[f->state * 4 + t->mdir[f->blank][i]];
    if (ns == kPruned) {
      budget++;
      continue;
    }
    w->gen++;
    uint8_t q = t->mcell[f->blank][i];
    uint8_t tile = w->board[q];
    int nh = (int)f->h + t->md[tile][f->blank] - t->md[tile][q];
    if (g + 1 + nh > bound) {
      budget++;
      continue;
    }
    if (nh == 0) {
      atomMin(&p->best, (int32_t)w->sub);
      w->g = g;
      return 1;
    }
    // Move to the child: expand it.
    w->board[f->blank] = tile;
    w->board[q] = 0;
    g++;
    Frame* c = &w->f[g];
    c->state = ns;
    c->blank = q;
    c->next = 0;
    c->h = (uint8_t)nh;
    w->exp++;
    TK_EXPANDED(w, t->cells);
    if (++w->since >= every) {
      w->g = g;
      bool found = poll(w, p, t);
      if (found) {
        atomMin(&p->best, (int32_t)w->sub);
        return 1;
      }
      if (vload(&p->stop) || (int32_t)w->sub > vloadi(&p->best)) return 1;
    }
  }
  w->g = g;
  return 0;
}

}  // namespace tk

#include "set.h"
#include "cat.h"

#endif
