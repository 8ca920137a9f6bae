// The frontier grown on the card: the host hands a pass a small top (a few thousand
// subtrees, ida's frontier), and the kernels expand it breadth first, a few depths a launch,
// to a few roots a thread, which the pass's search then takes (ida.cu, run). A level keeps
// the serial order: the nodes a few moves below each node that the search would reach
// (within the bound, no goal above them) are written in the search's order, after those
// below the nodes before it (an order-preserving compaction: a count of each node's, an
// exclusive scan of the counts, a write at the offsets). Every node above the new level is
// expanded as its thread's search would expand it (docs/SEARCH.md: the automaton or the
// move back, the bound, the goal), its counts added to its subtree's (Pass.gen, Pass.exp);
// a goal offers its subtree as the earliest solving one. A level's nodes are the search's
// frontier at their depth: package ida's collectFrontier's, in order (gpu's
// TestGrownFrontierIsIDAs).
//
// A kind grows when kinds.h's fourth column says so and Growth<W> knows its worker: md.h's
// (WorkerOf<D>, a consistent distance D), and a catalogue's (CatWorker: a level's nodes
// carry their lookups, Grow.fromSeeds and toSeeds, as a frontier's do; its values are
// consistent, so a grown root's search never raises its parent, and the grown roots do
// not own the top subtree's value). A set's values are raised by BPMX: it keeps the
// host's frontier (docs/ARCHITECTURE.md, "The GPU").
//
// A level takes two launches of kGrowBlock threads a block, a node a thread: the count
// (each node's count, and each block's sum; the last block to finish scans the sums into
// the blocks' offsets and the next level's size, Grow.total), and, once the host has read
// the total, the write. The last level's write also counts its nodes by slack (the bound
// less their depth and value: a node's subtree grows with it about sixfold each two), and
// a third launch orders them by it, the largest first (within a slack, in no set order on
// the GPU): the threads take the large subtrees first, and the pass does not end with a
// few threads on them. The host's emulation runs the same steps (emulate.h).
#ifndef TILEKIT_GPU_GROW_H
#define TILEKIT_GPU_GROW_H

#include "pass.h"

namespace tk {

// kGrowBlock is a growth launch's threads a block; kGrowDepth the most depths a launch
// grows; kSlacks the slacks the last level's order tells apart (more counts as the most).
enum : uint32_t { kGrowBlock = 256, kGrowDepth = 8, kSlacks = 256 };

// Grow is one level's growth (Pass.grow), set by the host before the count.
struct Grow {
  const Root* from;  // the level: n nodes in serial order
  Root* to;          // the next level: room for cap nodes
  // A catalogue's: each node's lookups, Pass.seedStride bytes a node (seeds, cat.h), of
  // the level and the next.
  const uint8_t* fromSeeds;
  uint8_t* toSeeds;
  uint32_t* sums;    // a block's: its nodes' next nodes, then (the count's scan) their offset
  uint32_t* counts;  // a node's next nodes (the count's)
  // The last level's: its nodes by slack (the write's, when not null), and the places
  // taken in each (the order's).
  uint32_t* slacks;
  uint32_t* taken;
  uint32_t n, cap;
  uint32_t depth;  // how many moves below a node the next level lies (1 to kGrowDepth)
  uint32_t total;  // the next level's nodes (the count's last block)
  uint32_t done;   // the count's blocks that have written their sum (the last resets it)
};

// slackOf is how far below the bound r's value leaves it: its subtree grows with it.
HD uint32_t slackOf(const Pass* p, const Root& r) {
  uint32_t s = p->bound - r.g - r.h;
  return s < kSlacks ? s : kSlacks - 1;
}

// Below is what the search below a node down to the next level did: the nodes expanded
// and generated (and, in the tests, the sum of the expanded boards' hashes), and whether
// it met the goal (it stops there, as the search does).
struct Below {
  uint32_t exp, gen;
  bool goal;
#ifdef TK_HASH
  unsigned long long hash;
#endif
};

// growBelow searches below r, depth first as its thread's search would, down to the nodes
// g->depth moves below it, which it writes in order to out (nullptr: counts them only; at
// most room of them), and returns how many there are.
template <class D>
HD uint32_t growBelow(const Pass* p, const Tables* t, const Grow* g, const Root& r, Root* out, uint32_t room, Below* w) {
  w->exp = w->gen = 0;
  w->goal = false;
#ifdef TK_HASH
  w->hash = 0;
#endif
  struct F {
    uint32_t state;
    uint8_t blank, h, next;
  } f[kGrowDepth];
  uint8_t b[kMaxCells];
  for (uint32_t c = 0; c < kMaxCells; c++) b[c] = r.board[c];
  const uint32_t depth = g->depth < 1 ? 1 : g->depth > kGrowDepth ? kGrowDepth : g->depth;
  const uint32_t bound = p->bound;
  uint32_t d = 0, k = 0;
  f[0].state = r.state;
  f[0].blank = r.blank;
  f[0].h = r.h;
  f[0].next = 0;
  w->exp = 1;
#ifdef TK_HASH
  w->hash += boardHash(b, t->cells);
#endif
  for (;;) {
    F& x = f[d];
    const uint32_t n = t->nmoves[x.blank];
    if (x.next >= n) {
      if (d == 0) break;
      // Back to the parent: undo the move.
      uint8_t pb = f[d - 1].blank;
      b[x.blank] = b[pb];
      b[pb] = 0;
      d--;
      continue;
    }
    uint8_t i = TK_MOVE(x.next, n);
    x.next++;
    uint32_t ns = t->fsm[x.state * 4 + t->mdir[x.blank][i]];
    if (ns == kPruned) continue;
    w->gen++;
    uint8_t q = t->mcell[x.blank][i];
    uint8_t tile = b[q];
    int nh = D::next(t, x.h, tile, x.blank, q);
    const uint32_t cg = r.g + d + 1;
    if (cg + nh > bound) continue;
    if (D::goal(t, nh, b, x.blank, q)) {
      w->goal = true;  // the search stops here
      break;
    }
    if (d + 1 == depth) {
      if (out != nullptr && k < room) out[k] = childRoot(b, x.blank, q, tile, cg, (uint8_t)nh, ns, r.sub, kOwner);
      k++;
      continue;
    }
    // Down to the child: expand it.
    b[x.blank] = tile;
    b[q] = 0;
    d++;
    f[d].state = ns;
    f[d].blank = q;
    f[d].h = (uint8_t)nh;
    f[d].next = 0;
    w->exp++;
#ifdef TK_HASH
    w->hash += boardHash(b, t->cells);
#endif
  }
  return k;
}

// growBelowCat is growBelow for a catalogue, with w's search (cat.h): below node i of the
// level, from its lookups, down to the nodes g->depth moves below it, each written with
// its lookups (at most room of them, at out and outSeeds; nullptr: counted only). A node
// is expanded as the search expands it: its children made and counted, each looked up in
// its best partition, one within the bound then in full (admit), and taken only if that
// keeps it within the bound.
HD uint32_t growBelowCat(Pass* p, const Tables* t, const Grow* g, uint32_t i, Root* out, uint8_t* outSeeds, uint32_t room, Below* b,
                         CatWorker* w) {
  const Root& r = g->from[i];
  const uint32_t stride = p->seedStride;
  start(w, r, t, p, g->fromSeeds + (unsigned long long)i * stride);
  const uint32_t depth = g->depth < 1 ? 1 : g->depth > kGrowDepth ? kGrowDepth : g->depth;
  const uint32_t bound = p->bound;
  uint32_t d = r.g, k = 0;
  b->goal = false;
  for (;;) {
    CatFrame* f = fr(w, d);
    if (!f->entered) {
      f->entered = 1;
      f->hb = (uint8_t)catChildren(w, f, t);
      f->next = 0;
    }
    while (f->next < f->nc && d + 1 + f->c[f->next].h > bound) f->next++;
    if (f->next == f->nc) {
      if (d == r.g) break;
      // Back to the parent.
      d--;
      CatFrame* pf = fr(w, d);
      ascend(w, pf, pf->c[pf->cur], t);
      continue;
    }
    f->cur = f->next;
    CatChild& c = f->c[f->next++];
    if (c.h == 0) {
      b->goal = true;  // the search stops here
      break;
    }
    if (!admit(w, f, c, d, bound, p, t)) continue;
    if (d + 1 - r.g == depth) {
      // A node of the next level, with its lookups: the node's, c's tile's its own.
      if (out != nullptr && k < room) {
        // Its search does not own the top subtree's value (it may not raise its parent).
        out[k] = childRoot(w->board, f->blank, c.q, c.tile, d + 1, c.h, t->fsm[f->state * 4 + c.dir], r.sub, cutLimit(p, d));
        putSeed(outSeeds + (unsigned long long)k * stride, t, c.tile, w->ex, w->hm, w->z, w->sum, w->pex, w->phm, w->pz);
      }
      k++;
      continue;
    }
    // Down to the child: expand it.
    descend(w, f, c, d, t);
    d++;
  }
  b->exp = (uint32_t)w->exp;
  b->gen = (uint32_t)w->gen;
#ifdef TK_HASH
  b->hash = w->hash;
#endif
  return k;
}

// Growth is the growth of a kind's level (a kind whose kinds.h line grows): below node i
// of g's level, its count of the next level's nodes, written at offset off of the next
// level when write (at most room of them), and what the search there did.
template <class W>
struct Growth;
template <class D>
struct Growth<WorkerOf<D>> {
  HD static uint32_t below(Pass* p, const Tables* t, const Grow* g, uint32_t i, uint32_t off, uint32_t room, bool write, Below* b) {
    return growBelow<D>(p, t, g, g->from[i], write ? g->to + off : nullptr, room, b);
  }
};
template <>
struct Growth<CatWorker> {
  HD static uint32_t below(Pass* p, const Tables* t, const Grow* g, uint32_t i, uint32_t off, uint32_t room, bool write, Below* b) {
    CatWorker w;
    return growBelowCat(p, t, g, i, write ? g->to + off : nullptr, write ? g->toSeeds + (unsigned long long)off * p->seedStride : nullptr,
                        room, b, &w);
  }
};

// growMove moves node i of g's level to place at of the next level, with its lookups (a
// catalogue's).
HD void growMove(const Pass* p, const Grow* g, uint32_t i, uint32_t at) {
  g->to[at] = g->from[i];
  if (g->fromSeeds != nullptr) {
    const uint8_t* s = g->fromSeeds + (unsigned long long)i * p->seedStride;
    uint8_t* d = g->toSeeds + (unsigned long long)at * p->seedStride;
    for (uint32_t x = 0; x < p->seedStride; x++) d[x] = s[x];
  }
}

// growCounted adds what the search below node r did to its subtree's counts, and offers a
// goal as the earliest solving subtree.
HD void growCounted(Pass* p, const Root& r, const Below& w) {
  atomAdd64(&p->exp[r.sub], w.exp);
  if (w.gen != 0) atomAdd64(&p->gen[r.sub], w.gen);
#ifdef TK_HASH
  atomAdd64(&p->hash[r.sub], w.hash);
#endif
  if (w.goal) atomMin(&p->best, (int32_t)r.sub);
}

// growPublish adds a block's generated nodes to the pass's, and stops the pass at its
// node limit.
HD void growPublish(Pass* p, unsigned long long gen) {
  if (p->limit == 0 || gen == 0) return;
  if (atomAdd64(&p->nodes, gen) + gen >= p->limit) vstore(&p->stop, 1);
}

// slackStarts sets start[s] to the place of the first node of slack s in the last level's
// order, the largest slack first, from the level's count of each.
HD void slackStarts(const uint32_t* slacks, uint32_t* start) {
  uint32_t at = 0;
  for (uint32_t s = kSlacks; s-- > 0;) {
    start[s] = at;
    at += slacks[s];
  }
}

}  // namespace tk

#endif
