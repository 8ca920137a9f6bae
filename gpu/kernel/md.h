// The search with the Manhattan distance (package ida's md), a kind of kinds.h: the
// thread's state, its start at a root, its donations and its step, node for node ida's
// (docs/SEARCH.md). The other kinds' headers (set.h, cat.h) have the same parts. The
// search takes its distance as a type (Md: the Manhattan distance after a move), so
// that a kind of another consistent distance is that type alone (blind.h).
#ifndef TILEKIT_GPU_MD_H
#define TILEKIT_GPU_MD_H

#include "pass.h"

namespace tk {

// Md is the Manhattan distance: its value h after a tile's move from cell from to cell to,
// and whether the node it reaches is the goal (the board before the move): h is 0.
struct Md {
  HD static int next(const Tables* t, int h, uint32_t tile, uint32_t from, uint32_t to) {
    return h + t->md[tile][from] - t->md[tile][to];
  }
  HD static bool goal(const Tables*, int h, const uint8_t*, uint32_t, uint32_t) { return h == 0; }
};

// WorkerOf is one thread's search with the distance D.
template <class D>
struct WorkerOf : WorkerBase {
  Frame f[kMaxDepth];
};

// Worker is one thread's search with the Manhattan distance.
using Worker = WorkerOf<Md>;

// frameOf is w's frame of the node at depth g.
template <class D>
HD Frame* frameOf(WorkerOf<D>* w, uint32_t g) { return &w->f[g]; }

// start sets w up to search below r (seed: its lookups under a catalogue, cat.h).
template <class D>
HD void start(WorkerOf<D>* w, const Root& r, const Tables* t, const Pass*, const uint8_t*) {
  begin(w, r, t->cells);
  Frame& f = w->f[r.g];
  f.state = r.state;
  f.blank = r.blank;
  f.next = 0;
  f.h = r.h;
}

// result records what a search leaves beside its counts: nothing, with the Manhattan
// distance (its values are consistent: BPMX raises none).
template <class D>
HD void result(WorkerOf<D>*, Pass*) {}

// donate gives away unexplored children while threads are idle and the queue holds fewer
// roots than they, once w has searched donateAfter nodes below its root since it took it
// or last donated (a thread with a small root finishes it): from w's shallowest node that
// has children left, then the next ones down, at most donateMost roots a time (and the
// rest of the last node's children), and only from nodes donateAbove moves or more above
// the bound (smaller subtrees are not worth a trip through the queue). A node's children
// are generated there, as its own search would generate them, and pushed as roots of the
// same subtree; the node is then done. It reports whether the search found the goal among
// them.
template <class D>
HD bool donate(WorkerOf<D>* w, Pass* p, const Tables* t) {
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
      int nh = D::next(t, f.h, tile, f.blank, q);
      bool goal = D::goal(t, nh, board, f.blank, q);
      if (d + 1 + nh <= p->bound && !goal) {
        push(p, childRoot(board, f.blank, q, tile, d + 1, (uint8_t)nh, ns, w->sub, cutLimit(p, d)));
        atomAdd64(&p->donated, 1);
        if (budget > 0) budget--;
      }
      w->gen++;  // generated here, once
      if (d + 1 + nh <= p->bound && goal) found = true;
    }
  }
  return found;
}

// poll publishes w's nodes, checks the cancel flag, and donates while threads are idle.
// It reports whether w's search found the goal while donating.
template <class D>
HD bool poll(WorkerOf<D>* w, Pass* p, const Tables* t) {
  w->since = 0;
  publish(w, p);
  if (p->cancel != 0 && ++w->polls % kCancelEvery == 0 && *p->cancel != 0) vstore(&p->stop, 1);
  return donate(w, p, t);
}

// step searches below w's root for at most budget expansions, taking them from budget. It
// returns 1 when the root's subtree is done (searched, found the goal, or abandoned), 0
// when it has more to do (budget is then spent).
template <class D>
HD int step(WorkerOf<D>* w, Pass* p, const Tables* t, uint32_t& budget) {
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
    int nh = D::next(t, f->h, tile, f->blank, q);
    if (g + 1 + nh > bound) {
      budget++;
      continue;
    }
    if (D::goal(t, nh, w->board, f->blank, q)) {
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
  budget = 0;
  w->g = g;
  return 0;
}

}  // namespace tk

#endif
