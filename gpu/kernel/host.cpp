// The GPU's search (search.h) run on the host with many virtual threads stepped in turn,
// for the tests of package gpu: it reads a pass (tables and frontier) on standard input and
// writes each subtree's counts. Built by the tests with g++ -DTK_HASH.
//
// Input, little-endian: uint32 cells, bound, nroots, threads, budget (expansions a thread
// takes a turn), donateAfter, pollEvery (0: the kernel's), fsm entries; the tables' nmoves[25], mcell[25][4],
// mdir[25][4], md[25][25] bytes; the automaton's transitions (uint32 each); uint32 kind (0:
// md, 1: a set, 2: a catalogue of zero-aware tables; for both, uint32 nl, np; each
// lookup's k, mirror, tiles[8], mtiles[8], cell[25], mcell[25] bytes, uint32 nibble bytes
// and the bytes, uint32 escapes and their uint32 indices and byte values; of[25][32],
// slot[25][32], touch[25][16], ntouch[25] bytes; for a catalogue then each lookup's zero,
// inBits, inv[25], num[25] bytes, uint32 bit bytes and the bytes, uint32 scheme; uint32
// schemes, each n, k, fact, pad, weight[8], binom[26][26], uint32 maps and their uint64
// mapInfo, uint32 region bytes and the bytes); nroots roots of 40 bytes (board[25],
// blank, g, h, uint32 state, uint32 subtree, thr, pad[3]); for a catalogue, uint32 seed stride and
// each root's seed (cat.h).
// Output, text: "best B", "donated D", "busy", "cycles", then a line "gen exp hash value" a
// subtree.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

#include "emulate.h"

static void die(const char* what) {
  fprintf(stderr, "host: %s\n", what);
  exit(2);
}

static void read(void* p, size_t n) {
  if (fread(p, 1, n, stdin) != n) die("short input");
}

static uint32_t u32() {
  uint8_t b[4];
  read(b, 4);
  return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

#define OFF(T, f) printf(#T "." #f " %zu\n", offsetof(T, f))

// layout prints the structures' sizes and offsets, which package gpu mirrors.
static void layout() {
  printf("Root %zu\nTables %zu\nPass %zu\n", sizeof(tk::Root), sizeof(tk::Tables), sizeof(tk::Pass));
  OFF(tk::Root, blank); OFF(tk::Root, g); OFF(tk::Root, h); OFF(tk::Root, state); OFF(tk::Root, sub); OFF(tk::Root, thr);
  OFF(tk::Tables, cells); OFF(tk::Tables, nmoves); OFF(tk::Tables, mcell); OFF(tk::Tables, mdir);
  OFF(tk::Tables, md); OFF(tk::Tables, fsm); OFF(tk::Tables, nl); OFF(tk::Tables, np); OFF(tk::Tables, look);
  OFF(tk::Tables, of); OFF(tk::Tables, slot); OFF(tk::Tables, touch); OFF(tk::Tables, ntouch);
  printf("SetLook %zu\n", sizeof(tk::SetLook));
  OFF(tk::SetLook, nib); OFF(tk::SetLook, escIdx); OFF(tk::SetLook, escVal); OFF(tk::SetLook, nesc);
  OFF(tk::SetLook, k); OFF(tk::SetLook, mirror); OFF(tk::SetLook, tiles); OFF(tk::SetLook, mtiles);
  OFF(tk::SetLook, cell); OFF(tk::SetLook, mcell); OFF(tk::SetLook, zero); OFF(tk::SetLook, inBits);
  OFF(tk::SetLook, inv); OFF(tk::SetLook, num); OFF(tk::SetLook, bits); OFF(tk::SetLook, zs);
  printf("ZScheme %zu\n", sizeof(tk::ZScheme));
  OFF(tk::ZScheme, k); OFF(tk::ZScheme, fact); OFF(tk::ZScheme, weight); OFF(tk::ZScheme, binom);
  OFF(tk::ZScheme, mapInfo); OFF(tk::ZScheme, region);
  OFF(tk::Pass, bound); OFF(tk::Pass, roots); OFF(tk::Pass, nroots); OFF(tk::Pass, gen); OFF(tk::Pass, exp);
  OFF(tk::Pass, next); OFF(tk::Pass, best); OFF(tk::Pass, queue); OFF(tk::Pass, seq); OFF(tk::Pass, cap);
  OFF(tk::Pass, head); OFF(tk::Pass, tail); OFF(tk::Pass, idle); OFF(tk::Pass, threads); OFF(tk::Pass, stop);
  OFF(tk::Pass, nodes); OFF(tk::Pass, limit); OFF(tk::Pass, cancel); OFF(tk::Pass, donated); OFF(tk::Pass, busy);
  OFF(tk::Pass, cycles); OFF(tk::Pass, donateAfter); OFF(tk::Pass, value); OFF(tk::Pass, order);
  OFF(tk::Pass, seeds); OFF(tk::Pass, seedStride); OFF(tk::Pass, qseeds); OFF(tk::Pass, hash);
  OFF(tk::Pass, pollEvery); OFF(tk::Pass, waitMax); OFF(tk::Pass, turn); OFF(tk::Pass, giveUpAt);
  OFF(tk::Pass, donateMost); OFF(tk::Pass, donateAbove); OFF(tk::Pass, claims); OFF(tk::Pass, misses);
}


// runThread is one real thread's loop, as the kernel's (ida.cu).
template <class W>
static void runThread(tk::Pass* p, const tk::Tables* t, uint32_t budget) {
  W* w = new W();
  bool over = false;
  while (!over) {
    if (!w->active) {
      // A group of one: each real thread claims for itself, racing the others.
      tk::takeGroup(&w, &over, 1, p, t);
      if (!w->active) {
        if (!over) std::this_thread::yield();
        continue;
      }
    }
    if (tk::stepOf(w, p, t, budget)) tk::finish(w, p);
  }
  __atomic_fetch_add(&p->claims, w->claims, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&p->misses, w->misses, __ATOMIC_SEQ_CST);
  delete w;
}


static uint8_t u8() {
  uint8_t b;
  read(&b, 1);
  return b;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "layout") == 0) {
    layout();
    return 0;
  }
  // "threads": the workers are real threads, racing as the GPU's do; else virtual
  // threads stepped in turn.
  bool real = argc > 1 && strcmp(argv[1], "threads") == 0;
  tk::Tables t;
  memset(&t, 0, sizeof t);
  t.cells = u32();
  uint32_t bound = u32(), nroots = u32(), threads = u32(), budget = u32(), after = u32(), poll = u32(), nfsm = u32();
  if (t.cells > tk::kMaxCells || threads == 0 || budget == 0 || bound >= tk::kMaxDepth) die("bad header");
  read(t.nmoves, sizeof t.nmoves);
  read(t.mcell, sizeof t.mcell);
  read(t.mdir, sizeof t.mdir);
  read(t.md, sizeof t.md);
  std::vector<uint32_t> fsm(nfsm);
  for (auto& x : fsm) x = u32();
  t.fsm = fsm.data();
  uint32_t kind = u32();
  std::vector<std::vector<uint8_t>> nibs, escVals, bits, regions;
  std::vector<std::vector<uint32_t>> escIdxs;
  std::vector<std::vector<unsigned long long>> mapInfos;
  std::vector<uint32_t> schemeOf;
  std::vector<tk::ZScheme> schemes;
  if (kind == 1 || kind == 2) {
    t.nl = u32();
    t.np = u32();
    if (t.nl > tk::kMaxLook || t.np > tk::kMaxPart) die("bad set");
    nibs.resize(t.nl);
    escVals.resize(t.nl);
    escIdxs.resize(t.nl);
    for (uint32_t k = 0; k < t.nl; k++) {
      tk::SetLook& l = t.look[k];
      l.k = u8();
      l.mirror = u8();
      read(l.tiles, 8);
      read(l.mtiles, 8);
      read(l.cell, tk::kMaxCells);
      read(l.mcell, tk::kMaxCells);
      nibs[k].resize(u32());
      read(nibs[k].data(), nibs[k].size());
      l.nesc = u32();
      escIdxs[k].resize(l.nesc);
      escVals[k].resize(l.nesc);
      for (auto& x : escIdxs[k]) x = u32();
      read(escVals[k].data(), l.nesc);
      l.nib = nibs[k].data();
      l.escIdx = escIdxs[k].data();
      l.escVal = escVals[k].data();
    }
    read(t.of, sizeof t.of);
    read(t.slot, sizeof t.slot);
    read(t.touch, sizeof t.touch);
    read(t.ntouch, sizeof t.ntouch);
  }
  if (kind == 2) {
    // A catalogue's zero-aware lookups, then their schemes.
    bits.resize(t.nl);
    schemeOf.resize(t.nl);
    for (uint32_t k = 0; k < t.nl; k++) {
      tk::SetLook& l = t.look[k];
      l.zero = u8();
      l.inBits = u8();
      read(l.inv, tk::kMaxCells);
      read(l.num, tk::kMaxCells);
      bits[k].resize(u32());
      read(bits[k].data(), bits[k].size());
      l.bits = bits[k].data();
      schemeOf[k] = u32();
    }
    uint32_t ns = u32();
    schemes.resize(ns);
    mapInfos.resize(ns);
    regions.resize(ns);
    for (uint32_t i = 0; i < ns; i++) {
      tk::ZScheme& z = schemes[i];
      z.n = u32();
      z.k = u32();
      z.fact = u32();
      z.pad = u32();
      for (auto& x : z.weight) x = u32();
      for (auto& row : z.binom)
        for (auto& x : row) x = u32();
      mapInfos[i].resize(u32());
      for (auto& x : mapInfos[i]) {
        unsigned long long lo = u32();
        x = lo | (unsigned long long)u32() << 32;
      }
      regions[i].resize(u32());
      read(regions[i].data(), regions[i].size());
      z.mapInfo = mapInfos[i].data();
      z.region = regions[i].data();
    }
    for (uint32_t k = 0; k < t.nl; k++) {
      if (schemeOf[k] >= ns) die("bad scheme");
      t.look[k].zs = &schemes[schemeOf[k]];
    }
  }
  std::vector<tk::Root> roots(nroots);
  for (auto& r : roots) {
    read(r.board, tk::kMaxCells);
    uint8_t b[3];
    read(b, 3);
    r.blank = b[0];
    r.g = b[1];
    r.h = b[2];
    r.state = u32();
    r.sub = u32();
    read(b, 1);
    r.thr = b[0];
    read(r.pad, 3);
    if (kind == 2 && bound - r.g > tk::kCatDepth) die("a pass too deep below a root for a catalogue's frames");
  }
  std::vector<uint8_t> seeds;
  uint32_t stride = 0;
  if (kind == 2) {
    stride = u32();
    if (stride != tk::seedStride(t.nl, t.np)) die("bad seed stride");
    seeds.resize((size_t)stride * nroots);
    read(seeds.data(), seeds.size());
  }
  std::vector<unsigned long long> gen(nroots), exp(nroots), hash(nroots);
  std::vector<int32_t> value(nroots);
  std::vector<tk::Root> queue(1 << 18);
  std::vector<uint32_t> seq(queue.size());
  tk::Pass p;
  memset(&p, 0, sizeof p);
  p.bound = bound;
  p.roots = roots.data();
  p.nroots = nroots;
  p.gen = gen.data();
  p.exp = exp.data();
  p.hash = hash.data();
  p.best = (int32_t)nroots;
  p.queue = queue.data();
  p.seq = seq.data();
  p.cap = (uint32_t)queue.size();
  p.donateAfter = after;
  p.pollEvery = poll;
  p.value = value.data();
  std::vector<uint8_t> qseeds;
  if (kind == 2) {
    qseeds.resize((size_t)stride * p.cap);
    p.seeds = seeds.data();
    p.seedStride = stride;
    p.qseeds = qseeds.data();
  }

  // The kind's threads (kinds.h, in order): real ones racing, or virtual ones in turn.
  uint32_t i = 0;
#define TK_RUN(entry, W, fn)                                                                    \
  if (kind == i++) {                                                                            \
    if (real) {                                                                                 \
      std::vector<std::thread> ts;                                                              \
      for (uint32_t k = 0; k < threads; k++) ts.emplace_back(runThread<tk::W>, &p, &t, budget); \
      for (auto& th : ts) th.join();                                                            \
    } else {                                                                                    \
      tk::emulate<tk::W>(&p, &t, threads, budget);                                              \
    }                                                                                           \
  }
  TK_KINDS(TK_RUN)
#undef TK_RUN
  printf("best %d\ndonated %llu\nbusy %llu\ncycles %llu\n", p.best, p.donated, p.busy, p.cycles);
  for (uint32_t i = 0; i < nroots; i++) printf("%llu %llu %llu %d\n", gen[i], exp[i], hash[i], value[i]);
  return 0;
}
