// How the threads of package gpu's search take, share and finish roots, for every kind of
// search (pass.h's overview, steps 1, 3 and 4): a root's board, a donated child, the
// queue, a root's start and end, the subtrees' counts and values, the claims of a group of
// threads, and when a thread may donate. Included by pass.h.
#ifndef TILEKIT_GPU_WORK_H
#define TILEKIT_GPU_WORK_H

namespace tk {

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
  *r = p->roots[i];
  if (p->seeds != nullptr) *seed = p->seeds + (unsigned long long)i * p->seedStride;
}

// takeOwn starts w on the next root, taken alone (claim, for one), once w's root is done
// within its step: a thread whose roots are small goes on searching rather than waiting
// for its group's turn to end (a warp's lanes wait for each other at the end of a step,
// and a frontier grown to a few roots a thread is mostly small roots). It reports whether
// w has a root again: none once the pass is stopped, or nothing is left to take now, and
// none (the root left) of a later subtree than the earliest solving one.
template <class W>
HD bool takeOwn(W* w, Pass* p, const Tables* t) {
  if (vload(&p->stop) || (vload(&p->next) >= p->nroots && used(vload(&p->tail), vload(&p->head)) == 0)) return false;
  Claim c = claim(p, 1);
  if (c.nq + c.nf == 0) return false;
  Root r;
  const uint8_t* seed;
  claimed(p, c, 0, &r, &seed);
  if ((int32_t)r.sub > vloadi(&p->best)) return false;
  start(w, r, t, p, seed);
  return true;
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
// what every thread may push at once. A thread with a large root (kLarge times donateAfter
// nodes since) donates while the queue holds fewer than Pass.keep roots, idle threads or
// none: threads take the queue's roots before the frontier's (claim), so that they keep to
// the earliest subtrees, share the large ones early, and meet the solving subtree's goal
// sooner (the last pass's).
HD uint32_t donateBudget(WorkerBase* w, Pass* p) {
  const unsigned long long since = w->exp - w->mark;
  if (since < p->donateAfter) return 0;  // a small root: finish it
  uint32_t want = vload(&p->idle);
  if (since >= (unsigned long long)kLarge * p->donateAfter && want < p->keep) want = p->keep;
  if (want == 0) return 0;
  uint32_t queued = used(vload(&p->tail), vload(&p->head));
  if (queued >= want) return 0;
  uint32_t most = donateMost(p);
  if (queued + vload(&p->threads) * (most + 3) >= p->cap) return 0;
  w->mark = w->exp;
  return want - queued < most ? want - queued : most;
}

}  // namespace tk

#endif
