// The search with a catalogue of zero-aware tables (Clausecker & Reinefeld 2017: small-t),
// or a set of them, in nibbles or in the bit encoding: ida's catalogue loop, node for node
// (docs/SEARCH.md, sections 2, 4 and 5). A kind of kinds.h.
//
// h = md + 2 * the largest partition sum of half excesses; a node's best partition is the
// first of the largest sum. A node's children are all made and counted first, each looked
// up in its parent's best partition alone; those that this keeps within the bound are then
// looked up in full, and their best partition found. A zero-aware lookup's index is stepped
// per move from its ranks (zStep, zIndexOf, as package zindex), and a table in the bit
// encoding gives a child's entry from its parent's value modulo 4 and one bit. BPMX as the
// protocol says (with consistent values it never fires). The thread keeps the current
// node's lookups (ex, hm, z) and partition sums, and each frame its children's lookups of
// the moved tile, which are swapped with the node's on the way down and back, as ida's
// catSwap does. A subtree's root starts from its frontier node's lookups (Pass.seeds):
// a value in the bit encoding from scratch would walk to the goal. Threads searching a
// catalogue donate as the Manhattan distance's do, each donated root with its lookups
// (donateCat, Pass.qseeds).
#ifndef TILEKIT_GPU_CAT_H
#define TILEKIT_GPU_CAT_H

namespace tk {

// The ranks of a zero-aware placement in one word (zindex.State): the occupied cells'
// mask, the map's rank and the order's rank.
enum : uint32_t { kZMapShift = 25, kZMapMask = (1u << 22) - 1, kZOrderShift = 47 };

// ctz is the index of x's lowest set bit (x != 0).
HD uint32_t ctz(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __ffs(x) - 1;
#else
  return __builtin_ctz(x);
#endif
}

// zStep returns the ranks after the tile on the table's cell from moves to the free cell
// to: moved is its number in the pattern, passed the numbers of the pattern's tiles on the
// occupied cells between from and to, in increasing order of cell (zindex.Scheme.Step).
HD unsigned long long zStep(const ZScheme* s, unsigned long long st, uint32_t from, uint32_t to, uint32_t moved,
                            const uint8_t* passed, uint32_t n) {
  uint32_t mask = (uint32_t)st & ((1u << kZMapShift) - 1);
  uint32_t m = (uint32_t)(st >> kZMapShift) & kZMapMask;
  uint32_t lo = from < to ? from : to, hi = from < to ? to : from;
  unsigned long long moveMask = (unsigned long long)(mask ^ (1u << from | 1u << to));
  if (n == 0) {
    // The tile keeps its place j among the occupied cells: the order stays.
    uint32_t j = popc(mask & ((1u << lo) - 1)) + 1;
    m += s->binom[to][j] - s->binom[from][j];
    unsigned long long order = st >> kZOrderShift;
    return moveMask | (unsigned long long)(m & kZMapMask) << kZMapShift | order << kZOrderShift;
  }
  uint32_t order = (uint32_t)(st >> kZOrderShift);
  uint32_t j = popc(mask & ((1u << from) - 1));  // the moving tile's place
  uint32_t between = mask & ((1u << hi) - (1u << (lo + 1)));
  if (to > from) {
    // Its place becomes j+n; those of the cells passed, j+1 to j+n, go down by one.
    m += s->binom[to][j + n + 1] - s->binom[from][j + 1];
    for (uint32_t p = j + 1; between != 0; p++) {
      uint32_t c = ctz(between);
      between &= between - 1;
      m += s->binom[c][p] - s->binom[c][p + 1];
    }
    for (uint32_t i = 0; i < n; i++) {
      if (passed[i] > moved) order += s->weight[moved];
      else order -= s->weight[passed[i]];
    }
  } else {
    // Its place becomes j-n; those of the cells passed, j-n to j-1, go up by one.
    m += s->binom[to][j - n + 1] - s->binom[from][j + 1];
    for (uint32_t p = j - n; between != 0; p++) {
      uint32_t c = ctz(between);
      between &= between - 1;
      m += s->binom[c][p + 2] - s->binom[c][p + 1];
    }
    for (uint32_t i = 0; i < n; i++) {
      if (passed[i] > moved) order -= s->weight[moved];
      else order += s->weight[passed[i]];
    }
  }
  return moveMask | (unsigned long long)(m & kZMapMask) << kZMapShift | (unsigned long long)order << kZOrderShift;
}

// zIndexOf returns the index of the placement st with the blank on the table's free cell
// blank (zindex.Scheme.IndexOf).
HD uint32_t zIndexOf(const ZScheme* s, unsigned long long st, uint32_t blank) {
  uint32_t m = (uint32_t)(st >> kZMapShift) & kZMapMask;
  unsigned long long info = s->mapInfo[m];
  uint32_t f = (uint32_t)info, cells = (uint32_t)(info >> 32);
  if ((cells & (1u << 31)) == 0) f += cells >> (blank & 31) & 1;  // region 1 or 0
  else f += s->region[m * s->n + blank];
  return f * s->fact + (uint32_t)(st >> kZOrderShift);
}

// CatChild is one child of a node while the node is searched: its lookups of the moved
// tile (touch order), swapped with the node's while the child is searched.
struct CatChild {
  uint32_t state;
  uint8_t q, tile, dir, h, md, full, bp, pad;
  uint8_t ex[kMaxTouch], hm[kMaxTouch];
  unsigned long long z[kMaxTouch];
};

// CatFrame is one node of a thread's path: cur is the child being searched, next the
// next to try.
struct CatFrame {
  uint32_t state;
  uint8_t blank, h, hb, md, next, nc, entered, bp, cur, pad[3];
  CatChild c[4];
};

// kCatDepth is how deep below its root a thread's path may go with a catalogue (its frames
// are large): package gpu refuses a pass deeper than that below a frontier node.
enum : uint32_t { kCatDepth = 128 };

// CatWorker is one thread's search with a catalogue: the current node's lookups and
// partition sums, and its path, frame 0 its root's (fr).
struct CatWorker : WorkerBase {
  uint8_t pos[kMaxCells];  // the cell of each tile, pos[0] the blank's
  int32_t value;           // the root's value as BPMX left it, once searched
  uint8_t ex[kMaxLook], hm[kMaxLook];
  unsigned long long z[kMaxLook];
  int16_t sum[kMaxPart];
  CatFrame f[kCatDepth];
};

// fr is w's frame of the node at depth g.
HD CatFrame* fr(CatWorker* w, uint32_t g) { return &w->f[g - w->g0]; }

// seedStride is the bytes of one root's seed for nl lookups in np partitions: each
// lookup's ranks (8 bytes), then each one's half excess and value modulo 4, then each
// partition's sum (int16), rounded up to 8.
HD uint32_t seedStride(uint32_t nl, uint32_t np) { return (10 * nl + 2 * np + 7) & ~7u; }

// bestOf is the first partition of the largest sum.
HD uint32_t bestOf(const int16_t* sum, uint32_t np) {
  uint32_t b = 0;
  for (uint32_t p = 1; p < np; p++)
    if (sum[p] > sum[b]) b = p;
  return b;
}

// start sets w up to search below r: its lookups from its seed (a frontier node's, or a
// donated root's, read past the multiprocessor's cache), its value as given.
HD void start(CatWorker* w, const Root& r, const Tables* t, const Pass*, const uint8_t* seed) {
  begin(w, r, t->cells);
  for (uint32_t c = 0; c < t->cells; c++) w->pos[w->board[c]] = (uint8_t)c;
  const volatile uint8_t* sd = seed;
  for (uint32_t k = 0; k < t->nl; k++) {
    unsigned long long z = 0;
    for (uint32_t b = 0; b < 8; b++) z |= (unsigned long long)sd[8 * k + b] << (8 * b);
    w->z[k] = z;
    w->ex[k] = sd[8 * t->nl + k];
    w->hm[k] = sd[9 * t->nl + k];
  }
  for (uint32_t q = 0; q < t->np; q++) {
    const volatile uint8_t* s = sd + 10 * t->nl + 2 * q;
    w->sum[q] = (int16_t)(s[0] | s[1] << 8);
  }
  CatFrame& f = *fr(w, r.g);
  f.state = r.state;
  f.blank = r.blank;
  f.h = r.h;
  f.entered = 0;
  f.bp = (uint8_t)bestOf(w->sum, t->np);
  int md = 0;
  for (uint32_t tile = 1; tile < t->cells; tile++) md += t->md[tile][w->pos[tile]];
  f.md = (uint8_t)md;
  w->value = r.h;
}

// result records the root's value as BPMX left it.
HD void result(CatWorker* w, Pass* p) { putValue(w, p, w->value); }

// catLook reads child c's lookup j (of touch[c.tile]), lookup k of the node whose blank
// is on blank and whose Manhattan distance is md: its index stepped from the node's
// ranks, then its entry. The board is the node's; w->pos is the child's.
HD void catLook(CatWorker* w, CatChild& c, uint32_t j, uint32_t k, uint8_t blank, int md, const Tables* t) {
  const SetLook& l = t->look[k];
  uint32_t from = l.cell[c.q], to = l.cell[blank];
  // The lookup's tiles the move passes, in increasing order of the table's cells.
  uint8_t passed[8];
  uint32_t n = 0;
  uint32_t lo = from < to ? from : to, hi = from < to ? to : from;
  uint32_t occ = (uint32_t)w->z[k] & ((1u << kZMapShift) - 1);
  for (uint32_t x = occ & ((1u << hi) - (1u << (lo + 1))); x != 0; x &= x - 1) passed[n++ & 7] = l.num[w->board[l.inv[ctz(x)]]];
  c.z[j] = zStep(l.zs, w->z[k], from, to, l.num[c.tile], passed, n & 7);
  uint32_t i = zIndexOf(l.zs, c.z[j], l.cell[c.q]);
  if (l.inBits) {
    uint32_t bit = l.bits[i >> 3] >> (i & 7) & 1;
    int dh = ((w->hm[k] + 1) >> 1 & 1) == bit ? 1 : -1;
    c.ex[j] = (uint8_t)((int)w->ex[k] + (dh - ((int)c.md - md)) / 2);
    c.hm[j] = (uint8_t)(((int)w->hm[k] + dh) & 3);
  } else {
    c.ex[j] = excessAt(l, t, i, w->pos);
    c.hm[j] = 0;
  }
}

// catChildren makes and counts the children of the node f at depth g, looks them up as
// ida's catalogue loop does, and returns its value as BPMX raises it from theirs.
HD int catChildren(CatWorker* w, CatFrame* f, uint32_t g, uint32_t bound, const Tables* t) {
  int hb = f->h;
  uint32_t bp = f->bp;
  f->nc = 0;
  // 1 and 2: each child, looked up in the node's best partition.
  for (uint8_t m = 0; m < t->nmoves[f->blank]; m++) {
    uint8_t i = TK_MOVE(m, t->nmoves[f->blank]);
    uint32_t ns = t->fsm[f->state * 4 + t->mdir[f->blank][i]];
    if (ns == kPruned) continue;
    CatChild& c = f->c[f->nc++];
    uint8_t tile = makeChild(w, f, c, i, ns, t), q = c.q;
    uint32_t j = t->slot[tile][bp], k = t->of[tile][bp];
    catLook(w, c, j, k, f->blank, f->md, t);
    w->pos[tile] = q;
    w->pos[0] = f->blank;
    c.h = (uint8_t)(c.md + 2 * (w->sum[bp] - w->ex[k] + c.ex[j]));
    c.full = g + 1 + c.h <= bound;
    if (c.h - 1 > hb) hb = c.h - 1;
  }
  // 3: the children kept, looked up in full.
  for (uint32_t x = 0; x < f->nc; x++) {
    CatChild& c = f->c[x];
    if (!c.full) continue;
    uint8_t tile = c.tile;
    uint32_t skip = t->slot[tile][bp];
    w->pos[tile] = f->blank;
    w->pos[0] = c.q;
    for (uint32_t j = 0; j < t->ntouch[tile]; j++)
      if (j != skip) catLook(w, c, j, t->touch[tile][j], f->blank, f->md, t);
    w->pos[tile] = c.q;
    w->pos[0] = f->blank;
    int best = -1;
    uint32_t bestP = 0;
    for (uint32_t q = 0; q < t->np; q++) {
      int v = w->sum[q] - w->ex[t->of[tile][q]] + c.ex[t->slot[tile][q]];
      if (v > best) {
        best = v;
        bestP = q;
      }
    }
    c.bp = (uint8_t)bestP;
    c.h = (uint8_t)(c.md + 2 * best);
    if (c.h - 1 > hb) hb = c.h - 1;
  }
  return hb;
}

// catSwap exchanges the current node's lookups of c's tile with c's, and moves the
// partition sums to the other side: to the child's on the way down, back to the node's
// on the way back.
HD void catSwap(CatWorker* w, CatChild& c, const Tables* t) {
  uint8_t tile = c.tile;
  for (uint32_t q = 0; q < t->np; q++) {
    int d = c.ex[t->slot[tile][q]] - w->ex[t->of[tile][q]];
    w->sum[q] = (int16_t)(w->sum[q] + d);
  }
  for (uint32_t j = 0; j < t->ntouch[tile]; j++) {
    uint32_t k = t->touch[tile][j];
    uint8_t e = w->ex[k], h = w->hm[k];
    unsigned long long z = w->z[k];
    w->ex[k] = c.ex[j];
    w->hm[k] = c.hm[j];
    w->z[k] = c.z[j];
    c.ex[j] = e;
    c.hm[j] = h;
    c.z[j] = z;
  }
}

// donateCat gives away, as donate does, the children left of w's nodes above depth g
// (the current node): they were made, counted and looked up when their parent was
// entered, so each goes with its lookups, made from the current node's by undoing the
// moves below its parent (each frame's current child holds its parent's lookups of the
// moved tile). It reports whether one of them is the goal.
HD bool donateCat(CatWorker* w, Pass* p, const Tables* t, uint32_t g) {
  if (p->qseeds == nullptr) return false;
  uint32_t budget = donateBudget(w, p);
  if (budget == 0) return false;
  const uint32_t nl = t->nl, np = t->np;
  bool found = false;
  for (uint32_t d = w->g0; d < g && budget > 0; d++) {
    CatFrame& f = *fr(w, d);
    if (f.next >= f.nc) continue;
    if (p->bound - d < donateAbove(p)) break;
    // The node's lookups and board: the current node's, the moves below it undone.
    uint8_t ex[kMaxLook], hm[kMaxLook];
    unsigned long long z[kMaxLook];
    int16_t sum[kMaxPart];
    for (uint32_t k = 0; k < nl; k++) {
      ex[k] = w->ex[k];
      hm[k] = w->hm[k];
      z[k] = w->z[k];
    }
    for (uint32_t q = 0; q < np; q++) sum[q] = w->sum[q];
    uint8_t board[kMaxCells];
    boardAt(w, g, d, board);
    for (uint32_t k = g; k > d; k--) {
      const CatFrame& pf = *fr(w, k - 1);
      const CatChild& c = pf.c[pf.cur];
      for (uint32_t q = 0; q < np; q++) sum[q] = (int16_t)(sum[q] + c.ex[t->slot[c.tile][q]] - ex[t->of[c.tile][q]]);
      for (uint32_t j = 0; j < t->ntouch[c.tile]; j++) {
        uint32_t x = t->touch[c.tile][j];
        ex[x] = c.ex[j];
        hm[x] = c.hm[j];
        z[x] = c.z[j];
      }
    }
    for (; f.next < f.nc; f.next++) {
      const CatChild& c = f.c[f.next];
      if (d + 1 + c.h > p->bound) continue;
      if (c.h == 0) {
        found = true;
        continue;
      }
      uint8_t seed[10 * kMaxLook + 2 * kMaxPart];
      for (uint32_t k = 0; k < nl; k++) {
        unsigned long long zk = z[k];
        uint8_t e = ex[k], m = hm[k];
        for (uint32_t j = 0; j < t->ntouch[c.tile]; j++) {
          if (t->touch[c.tile][j] == k) {
            zk = c.z[j];
            e = c.ex[j];
            m = c.hm[j];
          }
        }
        for (uint32_t b = 0; b < 8; b++) seed[8 * k + b] = (uint8_t)(zk >> (8 * b));
        seed[8 * nl + k] = e;
        seed[9 * nl + k] = m;
      }
      for (uint32_t q = 0; q < np; q++) {
        int v = sum[q] - ex[t->of[c.tile][q]] + c.ex[t->slot[c.tile][q]];
        seed[10 * nl + 2 * q] = (uint8_t)v;
        seed[10 * nl + 2 * q + 1] = (uint8_t)((uint32_t)v >> 8);
      }
      push(p, childRoot(board, f.blank, c.q, c.tile, d + 1, c.h, c.state, w->sub, cutLimit(p, d)), seed);
      atomAdd64(&p->donated, 1);
      if (budget > 0) budget--;
    }
    f.entered |= kDonor;
  }
  return found;
}

// The hooks of stepAll (set.h) for a catalogue: frames counted from the root, a node
// entered by catChildren, the node's lookups swapped with a child's on the way down and
// back, and donation at a poll.
HD CatFrame* frameOf(CatWorker* w, uint32_t g) { return fr(w, g); }
HD int enter(CatWorker* w, CatFrame* f, uint32_t g, uint32_t bound, const Tables* t) { return catChildren(w, f, g, bound, t); }
HD void down(CatWorker* w, CatFrame*, CatChild& c, uint32_t g, const Tables* t) {
  catSwap(w, c, t);
  CatFrame* n = fr(w, g + 1);
  n->state = c.state;
  n->blank = c.q;
  n->h = c.h;
  n->md = c.md;
  n->bp = c.bp;
  n->entered = 0;
}
HD void up(CatWorker* w, CatChild& c, const Tables* t) { catSwap(w, c, t); }
HD bool donateAt(CatWorker* w, Pass* p, const Tables* t, uint32_t g) { return donateCat(w, p, t, g); }

}  // namespace tk

#endif
