// The search with an additive set of tables in nibbles that are not zero-aware (Korf &
// Felner 2002: 5-5-5, 6-6-3 and 7-8 on 4x4, 6-6-6-6 on 5x5), with their reflection about
// the main diagonal: ida's catalogue loop for such a set, node for node (docs/SEARCH.md,
// sections 2, 4 and 5). A kind of kinds.h.
//
// A node's children are all made and counted first, each looked up in full (the lookups
// that hold the moved tile, in every partition); h = md + 2 * the largest partition sum of
// half excesses. BPMX: a node's value is raised to a child's less one, before its children
// are searched and after each; a value above the bound ends the node (a cut). The values
// are inconsistent, so a donated node's search may return a value that would have cut its
// donor's node: threads donate as with the Manhattan distance (donateSet), each donated
// node with the most its value may return without that (Root.thr), and a subtree where one
// returned more, or where a node whose children were given away was cut, is marked kRaised
// for the host to split further (the serial search's below it is then made from its parts').
// A value a donated node returns within that limit raises its donor's value at most to the
// bound: no node above it is cut by that (a node within the bound returns a value that
// keeps its parent two below it), so the serial search's counts stand, and only the
// subtree's value may be lower than the serial search's, both within the bound, where it
// decides nothing (docs/SEARCH.md, section 6).
// A root's value as BPMX left it goes to Pass.value, from the thread that owns it.
#ifndef TILEKIT_GPU_SET_H
#define TILEKIT_GPU_SET_H

namespace tk {

// SetChild is one child of a node while the node is searched.
struct SetChild {
  uint32_t state;
  uint8_t q, tile, dir, h;
  uint8_t md;
  uint8_t ex[kSetTouch];  // the half excesses of the lookups that hold tile (touch order)
  uint8_t pad[3];
};

// SetFrame is one node of a thread's path.
struct SetFrame {
  uint32_t state;
  uint8_t blank, h, hb, md;
  uint8_t next, nc, entered, cur;  // cur: the child being searched
  uint8_t ex[kSetLook];  // every lookup's half excess at the node
  int16_t sum[kSetPart];
  SetChild c[4];
};

// SetWorker is one thread's search with a set.
struct SetWorker : WorkerBase {
  uint8_t pos[kMaxCells];  // the cell of each tile, pos[0] the blank's
  int32_t value;           // the root's value as BPMX left it, once searched
  SetFrame f[kMaxDepth];
};

// popc counts the bits of x.
HD uint32_t popc(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

// rankOf is the k-permutation index of the tiles' cells under the cell map.
HD uint32_t rankOf(const uint8_t* tiles, const uint8_t* cell, uint32_t k, uint32_t n, const uint8_t* pos) {
  uint32_t used = 0, idx = 0;
  for (uint32_t i = 0; i < k; i++) {
    uint32_t c = cell[pos[tiles[i]]];
    idx = idx * (n - i) + c - popc(used & ((1u << c) - 1));
    used |= 1u << c;
  }
  return idx;
}

// lookIndex is where the lookup's table stores the entry of the positions pos: for a table
// stored through a mirror, the smaller of the placement's index and its image's.
HD uint32_t lookIndex(const SetLook& l, uint32_t n, const uint8_t* pos) {
  if (l.mirror) {
    uint8_t a = l.cell[pos[l.tiles[0]]], b = l.mcell[pos[l.mtiles[0]]];
    if (a > b) return rankOf(l.mtiles, l.mcell, l.k, n, pos);
    if (a == b) {
      uint32_t x = rankOf(l.tiles, l.cell, l.k, n, pos), y = rankOf(l.mtiles, l.mcell, l.k, n, pos);
      return x < y ? x : y;
    }
  }
  return rankOf(l.tiles, l.cell, l.k, n, pos);
}

// excessAt is half the excess of the lookup's entry i, for the positions pos, over its
// tiles' Manhattan distance: the nibble, or for an escape the listed entry's.
HD uint8_t excessAt(const SetLook& l, const Tables* t, uint32_t i, const uint8_t* pos) {
  uint8_t e = (l.nib[i >> 1] >> (4 * (i & 1))) & 0xF;
  if (e != 15) return e;
  uint32_t lo = 0, hi = l.nesc;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (l.escIdx[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  int md = 0;
  for (uint32_t j = 0; j < l.k; j++) md += t->md[l.tiles[j]][pos[l.tiles[j]]];
  return (uint8_t)((l.escVal[lo] - md) / 2);
}

// lookExcess is excessAt of the lookup's entry for the positions pos.
HD uint8_t lookExcess(const SetLook& l, const Tables* t, const uint8_t* pos) {
  return excessAt(l, t, lookIndex(l, t->cells, pos), pos);
}

// start sets w up to search below r: its lookups from scratch, its value as given.
HD void start(SetWorker* w, const Root& r, const Tables* t, const Pass*, const uint8_t*) {
  begin(w, r, t->cells);
  for (uint32_t c = 0; c < t->cells; c++) w->pos[w->board[c]] = (uint8_t)c;
  SetFrame& f = w->f[r.g];
  f.state = r.state;
  f.blank = r.blank;
  f.h = r.h;
  f.entered = 0;
  int md = 0;
  for (uint32_t tile = 1; tile < t->cells; tile++) md += t->md[tile][w->pos[tile]];
  f.md = (uint8_t)md;
  for (uint32_t k = 0; k < t->nl; k++) f.ex[k] = lookExcess(t->look[k], t, w->pos);
  for (uint32_t p = 0; p < t->np; p++) {
    int s = 0;
    for (uint32_t tile = 1; tile < t->cells; tile++) {
      // Each lookup once: at the first of its tiles.
      const SetLook& l = t->look[t->of[tile][p]];
      if (l.tiles[0] == tile) s += f.ex[t->of[tile][p]];
    }
    f.sum[p] = (int16_t)s;
  }
  w->value = r.h;
}

// result records the root's value as BPMX left it.
HD void result(SetWorker* w, Pass* p) { putValue(w, p, w->value); }

// makeChild counts and makes c, the child of the node f by its move i, as every kind of
// search keeps it: its cell, tile, direction and Manhattan distance; it moves the tile in
// w->pos for the child's lookups (the caller moves it back), and returns the tile.
template <class W, class F, class C>
HD uint8_t makeChild(W* w, const F* f, C& c, uint8_t i, const Tables* t) {
  w->gen++;
  uint8_t q = t->mcell[f->blank][i];
  uint8_t tile = w->board[q];
  c.q = q;
  c.tile = tile;
  c.dir = t->mdir[f->blank][i];
  c.md = (uint8_t)(f->md + t->md[tile][f->blank] - t->md[tile][q]);
  w->pos[tile] = f->blank;
  w->pos[0] = q;
  return tile;
}

// children makes and counts the children of the node f at depth g, each looked up in full,
// and returns its value as BPMX raises it from theirs.
HD int children(SetWorker* w, SetFrame* f, const Tables* t) {
  int hb = f->h;
  f->nc = 0;
  for (uint8_t m = 0; m < t->nmoves[f->blank]; m++) {
    uint8_t i = TK_MOVE(m, t->nmoves[f->blank]);
    uint32_t ns = t->fsm[f->state * 4 + t->mdir[f->blank][i]];
    if (ns == kPruned) continue;
    SetChild& c = f->c[f->nc++];
    c.state = ns;
    uint8_t tile = makeChild(w, f, c, i, t), q = c.q;
    for (uint32_t j = 0; j < t->ntouch[tile]; j++) c.ex[j] = lookExcess(t->look[t->touch[tile][j]], t, w->pos);
    w->pos[tile] = q;
    w->pos[0] = f->blank;
    int best = -1;
    for (uint32_t p = 0; p < t->np; p++) {
      int v = f->sum[p] - f->ex[t->of[tile][p]] + c.ex[t->slot[tile][p]];
      if (v > best) best = v;
    }
    c.h = (uint8_t)(c.md + 2 * best);
    if (c.h - 1 > hb) hb = c.h - 1;
  }
  return hb;
}

// The hooks of the loop below for a set: the frame of depth g, a node entered (its
// children made and looked up in full), a child taken (admit: a set's children are looked
// up in full already), the move down to child c (its frame filled from c and the node's
// lookups) and back, and what a poll donates (donateSet, below).
HD SetFrame* frameOf(SetWorker* w, uint32_t g) { return &w->f[g]; }
HD int enter(SetWorker* w, SetFrame* f, uint32_t, uint32_t, const Tables* t) { return children(w, f, t); }
// fillChild fills n, the frame of child c of the node f: its state, cell, value and
// lookups, not yet entered.
HD void fillChild(SetFrame* n, const SetFrame* f, const SetChild& c, const Tables* t) {
  n->state = c.state;
  n->blank = c.q;
  n->h = c.h;
  n->md = c.md;
  n->entered = 0;
  for (uint32_t k = 0; k < t->nl; k++) n->ex[k] = f->ex[k];
  for (uint32_t j = 0; j < t->ntouch[c.tile]; j++) n->ex[t->touch[c.tile][j]] = c.ex[j];
  for (uint32_t q = 0; q < t->np; q++) n->sum[q] = (int16_t)(f->sum[q] - f->ex[t->of[c.tile][q]] + c.ex[t->slot[c.tile][q]]);
}
HD void down(SetWorker* w, SetFrame* f, SetChild& c, uint32_t g, const Tables* t) { fillChild(&w->f[g + 1], f, c, t); }
HD bool admit(SetWorker*, SetFrame*, SetChild&, uint32_t, uint32_t, Pass*, const Tables*) { return true; }
HD void up(SetWorker*, SetFrame*, SetChild&, const Tables*) {}

// enterValue is the value child c of the node f (whose board is board) takes when its
// search enters it, its children made and looked up (children): what BPMX raises it to
// before any of them is searched. It counts nothing, and leaves w as it was.
HD int enterValue(SetWorker* w, const SetFrame& f, const SetChild& c, const uint8_t* board, const Tables* t) {
  uint8_t keepBoard[kMaxCells], keepPos[kMaxCells];
  for (uint32_t i = 0; i < kMaxCells; i++) {
    keepBoard[i] = w->board[i];
    keepPos[i] = w->pos[i];
    w->board[i] = board[i];
  }
  w->board[f.blank] = c.tile;
  w->board[c.q] = 0;
  for (uint32_t i = 0; i < t->cells; i++) w->pos[w->board[i]] = (uint8_t)i;
  SetFrame n;
  fillChild(&n, &f, c, t);
  unsigned long long gen = w->gen;
  int v = children(w, &n, t);
  w->gen = gen;
  for (uint32_t i = 0; i < kMaxCells; i++) {
    w->board[i] = keepBoard[i];
    w->pos[i] = keepPos[i];
  }
  return v;
}

// donateSet gives away, as donate does, the children left of w's nodes above depth g (the
// current node), in order, at most the budget: made, counted and looked up when their
// parent was entered, each goes with its value, which its thread's search starts from (its
// lookups are made again from its board), and with the most its value may return without
// cutting the node: bound - d + 1 for a node at depth d (Root.thr). A child whose value
// BPMX raises above that as soon as it is entered (enterValue) is kept, with those after
// it: its search would cut the node, and the children after it. The node is marked a
// donor (kDonor) until its search takes its next child: a cut before then would have left
// the children given away unsearched. It reports whether one of them is the goal.
HD bool donateSet(SetWorker* w, Pass* p, const Tables* t, uint32_t g) {
  uint32_t budget = donateBudget(w, p);
  if (budget == 0) return false;
  bool found = false;
  for (uint32_t d = w->g0; d < g && budget > 0; d++) {
    SetFrame& f = w->f[d];
    if (f.next >= f.nc) continue;
    if (p->bound - d < donateAbove(p)) break;
    // The node's board: the current node's, the moves below it undone.
    uint8_t board[kMaxCells];
    boardAt(w, g, d, board);
    const uint32_t thr = cutLimit(p, d);
    for (; f.next < f.nc && budget > 0; f.next++) {
      const SetChild& c = f.c[f.next];
      if (d + 1 + c.h > p->bound) continue;
      if (c.h == 0) {
        found = true;
        continue;
      }
      if ((uint32_t)enterValue(w, f, c, board, t) > thr) break;
      push(p, childRoot(board, f.blank, c.q, c.tile, d + 1, c.h, c.state, w->sub, (uint8_t)thr));
      atomAdd64(&p->donated, 1);
      budget--;
      f.entered |= kDonor;
    }
  }
  return found;
}
HD bool donateAt(SetWorker* w, Pass* p, const Tables* t, uint32_t g) { return donateSet(w, p, t, g); }

// descend moves w from the node f at depth g to its child c, expanding it: the tile slides
// into the blank's cell, the kind's state follows (down), and the child counts as
// expanded. ascend moves it back from c to f (up).
template <class W, class F, class C>
HD void descend(W* w, F* f, C& c, uint32_t g, const Tables* t) {
  w->board[f->blank] = c.tile;
  w->board[c.q] = 0;
  w->pos[c.tile] = f->blank;
  w->pos[0] = c.q;
  down(w, f, c, g, t);
  w->exp++;
  TK_EXPANDED(w, t->cells);
}
template <class W, class F, class C>
HD void ascend(W* w, F* f, C& c, const Tables* t) {
  w->board[c.q] = c.tile;
  w->board[f->blank] = 0;
  w->pos[c.tile] = c.q;
  w->pos[0] = f->blank;
  up(w, f, c, t);
}

// stepAll searches below w's root for at most budget expansions, taken from budget, as
// step does, in the loop
// of the sets and the catalogues (docs/SEARCH.md, sections 2 and 5): a node's children all
// made first (enter), then searched in order within the bound (admit: a catalogue's
// child is looked up in full when taken), BPMX raising the node's value before and after
// each. The kinds differ only in their hooks (set.h, cat.h).
template <class W>
HD int stepAll(W* w, Pass* p, const Tables* t, uint32_t& budget) {
  const uint32_t bound = p->bound, every = pollEvery(p);
  uint32_t g = w->g;
  int ret = -1;  // a node's value on its way back to its parent, or -1
  for (;;) {
    auto* f = frameOf(w, g);
    if (ret >= 0) {
      // Back from child f->cur, whose value is ret.
      auto& c = f->c[f->cur];
      ascend(w, f, c, t);
      int v = ret;
      ret = -1;
      if (v - 1 > f->hb) {
        f->hb = (uint8_t)(v - 1);
        if (g + f->hb > bound) {
          ret = f->hb;  // a cut: the later children are left
          // Those given away were searched: not the serial search.
#ifndef TK_UNCHECKED
          if (f->entered & kDonor) spoil(p, w->sub, kRaised);
#endif
        }
      }
    } else if (!f->entered) {
      f->entered = 1;
      int hb = enter(w, f, g, bound, t);
      f->hb = (uint8_t)hb;
      f->next = 0;
      if (g + hb > bound) ret = hb;
    }
    if (ret < 0) {
      // The next child within the bound.
      while (f->next < f->nc && g + 1 + f->c[f->next].h > bound) f->next++;
      if (f->next == f->nc) {
        ret = f->hb;
      } else {
        f->cur = f->next;
        f->entered &= (uint8_t)~kDonor;  // the children given away, if any, lie before this one
        auto& c = f->c[f->next++];
        if (c.h == 0) {
          // The goal (the host searches this subtree again for its moves and counts).
          atomMin(&p->best, (int32_t)w->sub);
          w->g = g;
          return 1;
        }
        // Move to the child: expand it, unless its value in full puts it past the bound
        // (admit: a catalogue looks a child up in full only now).
        if (budget == 0) {
          f->next--;
          w->g = g;
          return 0;
        }
        if (!admit(w, f, c, g, bound, p, t)) continue;
        budget--;
        descend(w, f, c, g, t);
        g++;
        if (++w->since >= every) {
          w->since = 0;
          publish(w, p);
          if (p->cancel != 0 && ++w->polls % kCancelEvery == 0 && *p->cancel != 0) vstore(&p->stop, 1);
          w->g = g;
          if (donateAt(w, p, t, g)) atomMin(&p->best, (int32_t)w->sub);
          // A subtree marked raised is searched on: it may hold the first solution, which
          // ends the launch sooner (the last pass's).
          if (vload(&p->stop) || (int32_t)w->sub > vloadi(&p->best)) return 1;
          if (p->giveUpAt != 0 && w->gen >= p->giveUpAt) {
            // Too large for one thread: the host splits it (its work here counts only
            // as the device's).
            w->value = kGivenUp;
            return 1;
          }
        }
        continue;
      }
    }
    // ret is the value of the node at depth g: back to its parent.
    if (g == w->g0) {
      w->value = ret;
      w->g = g;
      return 1;
    }
    g--;
  }
}

}  // namespace tk

#endif
