// The GPU's search (pass.h) run on the host with many threads, for the tests of package
// gpu: it reads a launch's memory as the engine lays it out for the GPU (the same bytes:
// gpu/buffers.go), maps it at the addresses the engine gave it, runs the launch, and
// writes the memory back as the threads left it. Built by the tests with g++ -DTK_HASH.
//
// Input, little-endian: the magic "tkhost2\n"; uint64 base, size, pass, tables (the
// arena's address and length, and where in it the kernel's two arguments lie); uint32
// kind (its place in kinds.h), launch (0: the kind's search; 1 and 2: its growth's count
// and write, 3: the growth's order, grow.h, on threads / kGrowBlock blocks), threads, budget (expansions a thread
// takes a turn) and real (1: the threads are real ones, racing as the GPU's do; 0: virtual
// ones stepped in turn, as the fake driver's); then the arena's size bytes.
// Output: the arena's size bytes after the launch.
//
// host layout prints the structures' sizes and offsets instead, which package gpu mirrors.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

static uint64_t u64() {
  uint8_t b[8];
  read(b, 8);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
  return v;
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
  OFF(tk::Pass, cycles); OFF(tk::Pass, donateAfter); OFF(tk::Pass, value);
  OFF(tk::Pass, seeds); OFF(tk::Pass, seedStride); OFF(tk::Pass, qseeds); OFF(tk::Pass, hash);
  OFF(tk::Pass, pollEvery); OFF(tk::Pass, waitMax); OFF(tk::Pass, turn); OFF(tk::Pass, giveUpAt);
  OFF(tk::Pass, donateMost); OFF(tk::Pass, donateAbove); OFF(tk::Pass, keep); OFF(tk::Pass, claims); OFF(tk::Pass, misses);
  OFF(tk::Pass, grow);
  printf("Grow %zu\n", sizeof(tk::Grow));
  OFF(tk::Grow, from); OFF(tk::Grow, to); OFF(tk::Grow, fromSeeds); OFF(tk::Grow, toSeeds); OFF(tk::Grow, sums); OFF(tk::Grow, counts); OFF(tk::Grow, slacks);
  OFF(tk::Grow, taken); OFF(tk::Grow, n); OFF(tk::Grow, cap); OFF(tk::Grow, depth); OFF(tk::Grow, total);
  OFF(tk::Grow, done);
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
    uint32_t left = budget;
    while (tk::stepOf(w, p, t, left)) {
      tk::finish(w, p);
      if (left == 0 || !tk::takeOwn(w, p, t)) break;
    }
  }
  __atomic_fetch_add(&p->claims, w->claims, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&p->misses, w->misses, __ATOMIC_SEQ_CST);
  delete w;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "layout") == 0) {
    layout();
    return 0;
  }
  char magic[8];
  read(magic, 8);
  if (memcmp(magic, "tkhost2\n", 8) != 0) die("not a launch's memory");
  uint64_t base = u64(), size = u64(), pass = u64(), tables = u64();
  uint32_t kind = u32(), launch = u32(), threads = u32(), budget = u32(), real = u32();
  if (threads == 0 || budget == 0 || size == 0 || pass < base || pass + sizeof(tk::Pass) > base + size ||
      tables < base || tables + sizeof(tk::Tables) > base + size)
    die("bad header");
  // The arena at the engine's addresses: every pointer in it stands as the engine wrote it.
  void* at = mmap((void*)base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (at != (void*)base) die("cannot map the arena at its address");
  read(at, size);
  tk::Pass* p = (tk::Pass*)pass;
  const tk::Tables* t = (const tk::Tables*)tables;
  if (p->bound >= tk::kMaxDepth || t->cells > tk::kMaxCells) die("bad pass");

  // The kind's threads (kinds.h, in order): real ones racing, or virtual ones in turn; or
  // a launch of its growth.
  uint32_t i = 0;
  bool ran = false;
  const uint32_t blocks = (threads + tk::kGrowBlock - 1) / tk::kGrowBlock;
#define TK_GROWS_0(W)
#define TK_GROWS_1(W)                                                                    \
  if (launch == 1) tk::emulateGrowCount<tk::W>(p, t, blocks), ran = true; \
  if (launch == 2) tk::emulateGrowWrite<tk::W>(p, t, blocks), ran = true;
#define TK_RUN(entry, W, fn, grows)                                                             \
  if (kind == i++ && launch != 0) {                                                             \
    TK_GROWS_##grows(W)                                                                         \
  }                                                                                             \
  if (kind == i - 1 && launch == 0) {                                                           \
    ran = true;                                                                                 \
    if (real) {                                                                                 \
      std::vector<std::thread> ts;                                                              \
      for (uint32_t k = 0; k < threads; k++) ts.emplace_back(runThread<tk::W>, p, t, budget);   \
      for (auto& th : ts) th.join();                                                            \
    } else {                                                                                    \
      tk::emulate<tk::W>(p, t, threads, budget);                                                \
    }                                                                                           \
  }
  TK_KINDS(TK_RUN)
#undef TK_RUN
  if (launch == 3) {
    tk::emulateGrowOrder(p, blocks);
    ran = true;
  }
  if (!ran) die("no such kind");
  if (fwrite(at, 1, size, stdout) != size) die("short output");
  return 0;
}
