// The search with a catalogue of zero-aware tables (Clausecker & Reinefeld 2017: small-t),
// or a set of them, in nibbles or in the bit encoding: ida's catalogue loop, node for node
// (docs/SEARCH.md, sections 2, 4 and 5). A kind of kinds.h.
//
// h = md + 2 * the largest partition sum of half excesses; a node's best partition is the
// first of the largest sum. A node's children are all made and counted first, each looked
// up in its parent's best partition alone; one that this keeps within the bound is looked
// up in full when the search takes it (admit), and its best partition found. A
// zero-aware lookup's index is stepped per move from its ranks (zMove, zIndexOf, as
// package zindex), and a table in the bit encoding gives a child's entry from its
// parent's value modulo 4 and one bit. The values are consistent (a move changes one
// lookup of each partition by one), so BPMX never raises a node: a child whose value in
// full would have (a table that is not what it claims) marks its subtree kRaised, for the
// host to search again.
//
// Lean frames (the thread's path, kMaxDepth of them below any root: no pass is too deep):
// the thread keeps the current node's lookups (ex, hm, z) and partition sums; a frame
// keeps its children's cells, values in the best partition and distances, and, while one
// of them is searched, the node's lookups of the moved tile that the child's replaced
// (uex, uhm): its ranks are stepped back on the way up, not kept. A subtree's root starts
// from its frontier node's lookups (Pass.seeds): a value in the bit encoding from scratch
// would walk to the goal. Threads searching a catalogue donate as the Manhattan
// distance's do, each donated root with its lookups (donateCat, Pass.qseeds).
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

// zMove returns the ranks zk of lookup l after its tile moved moves from the table's cell
// from to its free cell to, on a board that holds the lookup's other tiles (the node's or
// the child's: they differ only on the two cells).
HD unsigned long long zMove(const SetLook& l, unsigned long long zk, const uint8_t* board, uint32_t from, uint32_t to, uint32_t moved) {
  // The lookup's tiles the move passes, in increasing order of the table's cells.
  uint8_t passed[8];
  uint32_t n = 0;
  uint32_t lo = from < to ? from : to, hi = from < to ? to : from;
  uint32_t occ = (uint32_t)zk & ((1u << kZMapShift) - 1);
  for (uint32_t x = occ & ((1u << hi) - (1u << (lo + 1))); x != 0; x &= x - 1) passed[n++ & 7] = l.num[board[l.inv[ctz(x)]]];
  return zStep(l.zs, zk, from, to, moved, passed, n & 7);
}

// catLook looks up lookup k for the child of a node whose blank is on cell blank, where
// tile moves from cell q: from the node's ranks zk, half excess exk and value modulo 4 hmk
// (board: the node's; pos: the child's cells; dmd: the child's Manhattan distance less the
// node's), the child's ranks, half excess and value modulo 4.
HD void catLook(const Tables* t, uint32_t k, const uint8_t* board, const uint8_t* pos, unsigned long long zk, uint8_t exk, uint8_t hmk,
                uint8_t q, uint8_t blank, uint8_t tile, int dmd, unsigned long long& z, uint8_t& ex, uint8_t& hm) {
  const SetLook& l = t->look[k];
  z = zMove(l, zk, board, l.cell[q], l.cell[blank], l.num[tile]);
  uint32_t i = zIndexOf(l.zs, z, l.cell[q]);
  if (l.inBits) {
    uint32_t bit = l.bits[i >> 3] >> (i & 7) & 1;
    int dh = ((hmk + 1) >> 1 & 1) == bit ? 1 : -1;
    ex = (uint8_t)((int)exk + (dh - dmd) / 2);
    hm = (uint8_t)(((int)hmk + dh) & 3);
  } else {
    ex = excessAt(l, t, i, pos);
    hm = 0;
  }
}

// CatChild is one child of a node while the node is searched: its cell, tile, direction
// and Manhattan distance, and its value in the node's best partition (once the search
// takes it, in full: admit).
struct CatChild {
  uint8_t q, tile, dir, h, md, pad;
};

// CatFrame is one node of a thread's path: cur is the child being searched, next the
// next to try; uex and uhm (two bits a lookup) the node's lookups of child cur's tile
// (touch order), which the child's replace in the thread's while it is searched.
struct CatFrame {
  uint32_t state, uhm;
  uint8_t blank, h, hb, md, next, nc, entered, bp, cur;
  CatChild c[4];
  uint8_t uex[kMaxTouch];
};

// CatWorker is one thread's search with a catalogue: the current node's lookups and
// partition sums, the lookups of the child admitted (p*, touch order) and its best
// partition, and its path, frame 0 its root's (fr).
struct CatWorker : WorkerBase {
  uint8_t pos[kMaxCells];  // the cell of each tile, pos[0] the blank's
  int32_t value;           // the root's value as BPMX left it, once searched
  uint8_t ex[kMaxLook], hm[kMaxLook];
  unsigned long long z[kMaxLook];
  int16_t sum[kMaxPart];
  uint8_t pex[kMaxTouch], phm[kMaxTouch], pbp;
  unsigned long long pz[kMaxTouch];
  CatFrame f[kMaxDepth];
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

// catChildren makes and counts the children of the node f, each looked up in the node's
// best partition alone, and returns its value as BPMX raises it from theirs.
HD int catChildren(CatWorker* w, CatFrame* f, const Tables* t) {
  int hb = f->h;
  uint32_t bp = f->bp;
  f->nc = 0;
  for (uint8_t m = 0; m < t->nmoves[f->blank]; m++) {
    uint8_t i = TK_MOVE(m, t->nmoves[f->blank]);
    if (t->fsm[f->state * 4 + t->mdir[f->blank][i]] == kPruned) continue;
    CatChild& c = f->c[f->nc++];
    uint8_t tile = makeChild(w, f, c, i, t), q = c.q;
    uint32_t k = t->of[tile][bp];
    unsigned long long z;
    uint8_t ex, hm;
    catLook(t, k, w->board, w->pos, w->z[k], w->ex[k], w->hm[k], q, f->blank, tile, (int)c.md - f->md, z, ex, hm);
    w->pos[tile] = q;
    w->pos[0] = f->blank;
    c.h = (uint8_t)(c.md + 2 * (w->sum[bp] - w->ex[k] + ex));
    if (c.h - 1 > hb) hb = c.h - 1;
  }
  return hb;
}

// lookFull looks child c of a node (blank on blank, Manhattan distance md, best partition
// bp, c.h its value there) up in full from the node's lookups ex, hm, z and sums sum on
// board (the node's; pos its cells): the child's lookups of its tile into cex, chm, cz
// (touch order), its best partition into cbp; it returns the child's value. The best
// partition's lookup, whose entry c.h gave, is stepped, not read again.
HD int lookFull(const Tables* t, const CatChild& c, uint8_t blank, uint8_t md, uint32_t bp, const uint8_t* board, uint8_t* pos, const uint8_t* ex,
                const uint8_t* hm, const unsigned long long* z, const int16_t* sum, uint8_t* cex, uint8_t* chm, unsigned long long* cz,
                uint8_t& cbp) {
  const uint8_t tile = c.tile;
  const int dmd = (int)c.md - md;
  pos[tile] = blank;
  pos[0] = c.q;
  const uint32_t skip = t->slot[tile][bp];
  for (uint32_t j = 0; j < t->ntouch[tile]; j++) {
    uint32_t k = t->touch[tile][j];
    if (j != skip) {
      catLook(t, k, board, pos, z[k], ex[k], hm[k], c.q, blank, tile, dmd, cz[j], cex[j], chm[j]);
      continue;
    }
    const SetLook& l = t->look[k];
    cz[j] = zMove(l, z[k], board, l.cell[c.q], l.cell[blank], l.num[tile]);
    cex[j] = (uint8_t)(((int)c.h - c.md) / 2 - sum[bp] + ex[k]);
    chm[j] = l.inBits ? (uint8_t)((hm[k] + 2 * (cex[j] - ex[k]) + dmd) & 3) : 0;
  }
  pos[tile] = c.q;
  pos[0] = blank;
  int best = -1;
  uint32_t bestP = 0;
  for (uint32_t q = 0; q < t->np; q++) {
    int v = sum[q] - ex[t->of[tile][q]] + cex[t->slot[tile][q]];
    if (v > best) {
      best = v;
      bestP = q;
    }
  }
  cbp = (uint8_t)bestP;
  return c.md + 2 * best;
}

// admit looks child c of the node f at depth g up in full (into w's p*), now that the
// search takes it, and reports whether its value keeps it within the bound. A value that
// would have raised the node by BPMX, had it been looked up with its siblings, marks the
// subtree kRaised (never with consistent tables).
HD bool admit(CatWorker* w, CatFrame* f, CatChild& c, uint32_t g, uint32_t bound, Pass* p, const Tables* t) {
  int h = lookFull(t, c, f->blank, f->md, f->bp, w->board, w->pos, w->ex, w->hm, w->z, w->sum, w->pex, w->phm, w->pz, w->pbp);
#ifndef TK_UNCHECKED
  if (h - 1 > f->hb) spoil(p, w->sub, kRaised);
#else
  (void)p;
#endif
  c.h = (uint8_t)h;
  return g + 1 + h <= bound;
}

// down moves w's lookups to child c of the node f at depth g (admitted): the node's of c's
// tile kept in f, the child's frame filled.
HD void down(CatWorker* w, CatFrame* f, CatChild& c, uint32_t g, const Tables* t) {
  const uint8_t tile = c.tile;
  for (uint32_t q = 0; q < t->np; q++) w->sum[q] = (int16_t)(w->sum[q] + w->pex[t->slot[tile][q]] - w->ex[t->of[tile][q]]);
  uint32_t uhm = 0;
  for (uint32_t j = 0; j < t->ntouch[tile]; j++) {
    uint32_t k = t->touch[tile][j];
    f->uex[j] = w->ex[k];
    uhm |= (uint32_t)(w->hm[k] & 3) << (2 * j);
    w->ex[k] = w->pex[j];
    w->hm[k] = w->phm[j];
    w->z[k] = w->pz[j];
  }
  f->uhm = uhm;
  CatFrame* n = fr(w, g + 1);
  n->state = t->fsm[f->state * 4 + c.dir];
  n->blank = c.q;
  n->h = c.h;
  n->md = c.md;
  n->bp = w->pbp;
  n->entered = 0;
}

// up moves w's lookups back from child c to the node f (its board w's again): the ranks
// stepped back, the rest from f.
HD void up(CatWorker* w, CatFrame* f, CatChild& c, const Tables* t) {
  const uint8_t tile = c.tile;
  for (uint32_t q = 0; q < t->np; q++) w->sum[q] = (int16_t)(w->sum[q] + f->uex[t->slot[tile][q]] - w->ex[t->of[tile][q]]);
  for (uint32_t j = 0; j < t->ntouch[tile]; j++) {
    uint32_t k = t->touch[tile][j];
    const SetLook& l = t->look[k];
    w->z[k] = zMove(l, w->z[k], w->board, l.cell[f->blank], l.cell[c.q], l.num[tile]);
    w->ex[k] = f->uex[j];
    w->hm[k] = (uint8_t)(f->uhm >> (2 * j) & 3);
  }
}

// putSeed writes to seed (seedStride bytes, start's layout) the lookups of the child of a
// node where tile moved: the node's lookups ex, hm, z and partition sums sum, those of
// tile's lookups replaced by the child's cex, chm, cz (touch order).
HD void putSeed(uint8_t* seed, const Tables* t, uint8_t tile, const uint8_t* ex, const uint8_t* hm, const unsigned long long* z,
                const int16_t* sum, const uint8_t* cex, const uint8_t* chm, const unsigned long long* cz) {
  const uint32_t nl = t->nl;
  auto put = [&](uint32_t k, unsigned long long zk, uint8_t e, uint8_t m) {
    for (uint32_t b = 0; b < 8; b++) seed[8 * k + b] = (uint8_t)(zk >> (8 * b));
    seed[8 * nl + k] = e;
    seed[9 * nl + k] = m;
  };
  for (uint32_t k = 0; k < nl; k++) put(k, z[k], ex[k], hm[k]);
  for (uint32_t j = 0; j < t->ntouch[tile]; j++) put(t->touch[tile][j], cz[j], cex[j], chm[j]);
  for (uint32_t q = 0; q < t->np; q++) {
    int v = sum[q] - ex[t->of[tile][q]] + cex[t->slot[tile][q]];
    seed[10 * nl + 2 * q] = (uint8_t)v;
    seed[10 * nl + 2 * q + 1] = (uint8_t)((uint32_t)v >> 8);
  }
}

// donateCat gives away, as donate does, the children left of w's nodes above depth g
// (the current node), each looked up in full and with its lookups: those of its node are
// the current node's with the moves below it undone (each frame keeps what its child
// replaced, and the ranks step back). A child whose value in full puts it past the bound
// is left, as the search would leave it. It reports whether one of them is the goal.
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
    // The node's lookups, board and cells: the current node's, the moves below it undone.
    uint8_t ex[kMaxLook], hm[kMaxLook], board[kMaxCells], pos[kMaxCells];
    unsigned long long z[kMaxLook];
    int16_t sum[kMaxPart];
    for (uint32_t k = 0; k < nl; k++) {
      ex[k] = w->ex[k];
      hm[k] = w->hm[k];
      z[k] = w->z[k];
    }
    for (uint32_t q = 0; q < np; q++) sum[q] = w->sum[q];
    for (uint32_t c = 0; c < kMaxCells; c++) board[c] = w->board[c];
    for (uint32_t k = g; k > d; k--) {
      const CatFrame& pf = *fr(w, k - 1);
      const CatChild& c = pf.c[pf.cur];
      board[c.q] = c.tile;
      board[pf.blank] = 0;
      for (uint32_t q = 0; q < np; q++) sum[q] = (int16_t)(sum[q] + pf.uex[t->slot[c.tile][q]] - ex[t->of[c.tile][q]]);
      for (uint32_t j = 0; j < t->ntouch[c.tile]; j++) {
        uint32_t x = t->touch[c.tile][j];
        const SetLook& l = t->look[x];
        z[x] = zMove(l, z[x], board, l.cell[pf.blank], l.cell[c.q], l.num[c.tile]);
        ex[x] = pf.uex[j];
        hm[x] = (uint8_t)(pf.uhm >> (2 * j) & 3);
      }
    }
    for (uint32_t c = 0; c < t->cells; c++) pos[board[c]] = (uint8_t)c;
    for (; f.next < f.nc; f.next++) {
      CatChild& c = f.c[f.next];
      if (d + 1 + c.h > p->bound) continue;
      if (c.h == 0) {
        found = true;
        continue;
      }
      uint8_t cex[kMaxTouch], chm[kMaxTouch], cbp;
      unsigned long long cz[kMaxTouch];
      int h = lookFull(t, c, f.blank, f.md, f.bp, board, pos, ex, hm, z, sum, cex, chm, cz, cbp);
#ifndef TK_UNCHECKED
      if (h - 1 > f.hb) spoil(p, w->sub, kRaised);
#endif
      c.h = (uint8_t)h;
      if (d + 1 + h > p->bound) continue;
      uint8_t seed[10 * kMaxLook + 2 * kMaxPart];
      putSeed(seed, t, c.tile, ex, hm, z, sum, cex, chm, cz);
      uint32_t state = t->fsm[f.state * 4 + c.dir];
      push(p, childRoot(board, f.blank, c.q, c.tile, d + 1, c.h, state, w->sub, cutLimit(p, d)), seed);
      atomAdd64(&p->donated, 1);
      if (budget > 0) budget--;
    }
    f.entered |= kDonor;
  }
  return found;
}

// The hooks of stepAll (set.h) for a catalogue: frames counted from the root, a node
// entered by catChildren, a child looked up in full when taken (admit), the node's lookups
// of the moved tile replaced by the child's on the way down and back, and donation at a
// poll.
HD CatFrame* frameOf(CatWorker* w, uint32_t g) { return fr(w, g); }
HD int enter(CatWorker* w, CatFrame* f, uint32_t, uint32_t, const Tables* t) { return catChildren(w, f, t); }
HD bool donateAt(CatWorker* w, Pass* p, const Tables* t, uint32_t g) { return donateCat(w, p, t, g); }

}  // namespace tk

#endif
