// The GPU's IDA* pass (search.h, set.h, cat.h): one persistent thread a worker, each taking roots
// until the pass is over, an entry a kind of search (kinds.h). Compiled to PTX by go
// generate (internal/gen ptx).
#include "kinds.h"

// run is a thread's loop: it takes roots and searches below them until the pass is over.
//
// A warp's threads go through the loop together, a turn at a time: those without a root
// take what one of them claims for all (tk::claim), those with one search at most a turn's
// expansions (tk::turn), and only a warp of which no thread holds a root sleeps. A thread
// never sleeps, nor waits in a branch of its own, while others of its warp search: the
// warp would wait with it (a sleeping branch of a divergent warp holds the warp's other
// branches too). The host's emulation does the same for each group of 32 (tk::takeGroup).
template <class W>
__device__ void run(tk::Pass* p, const tk::Tables* t) {
  __shared__ tk::Tables st;
  // The tables are small but for the automaton and a set's tables, which stay in global
  // memory.
  const uint8_t* src = reinterpret_cast<const uint8_t*>(t);
  uint8_t* dst = reinterpret_cast<uint8_t*>(&st);
  for (uint32_t i = threadIdx.x; i < sizeof(tk::Tables); i += blockDim.x) dst[i] = src[i];
  __syncthreads();

  W w;
  w.active = false;
  w.idle = false;
  w.started = false;
  w.since = 0;
  w.polls = threadIdx.x;  // the threads of a block read the cancel flag at different polls
  bool over = false;
  long long begin = clock64(), busy = 0, took = 0;
  w.claims = w.misses = 0;
  const unsigned warp = __activemask();  // the whole warp: blocks are whole warps
  const int lane = threadIdx.x & 31;
  const uint32_t budget = tk::turn(p);
  // A claim that finds nothing is tried again after a wait that doubles up to p->waitMax
  // (64 us), and a warp with no root at all sleeps that long; threads that have just
  // finished a root claim at once. (The wait is kept alike in every thread of the warp:
  // each acts on the asker's answer.)
  const unsigned waitMax = p->waitMax != 0 ? p->waitMax : 65536;
  unsigned wait = 128;
  long long askAt = 0;
  for (;;) {
    const bool wants = !over && !w.active;
    const unsigned want = __ballot_sync(warp, wants);
    if (want != 0) {
      const unsigned fresh = __ballot_sync(warp, wants && !w.idle);
      const unsigned starting = __ballot_sync(warp, wants && !w.started);
      const int asker = __ffs(want) - 1;
      tk::Claim c = {0, 0, 0, 0};
      uint32_t asked = 0;
      long long now = 0;
      if (lane == asker) {
        if (starting != 0) atomicAdd(&p->threads, (uint32_t)__popc(starting));
        now = clock64();
        if (fresh != 0 || now >= askAt) {
          c = tk::claim(p, (uint32_t)__popc(want));
          asked = 1;
        }
      }
      if (wants) w.started = true;
      asked = __shfl_sync(warp, asked, asker);
      if (asked != 0) {
        c.q = __shfl_sync(warp, c.q, asker);
        c.nq = __shfl_sync(warp, c.nq, asker);
        c.f = __shfl_sync(warp, c.f, asker);
        c.nf = __shfl_sync(warp, c.nf, asker);
        now = __shfl_sync(warp, now, asker);
        const uint32_t got = c.nq + c.nf;
        bool has = false;
        const uint32_t k = (uint32_t)__popc(want & ((1u << lane) - 1));
        if (wants && k < got) {
          tk::Root r;
          const uint8_t* seed;
          tk::claimed(p, c, k, &r, &seed);
          // A later subtree than the earliest solving one: nothing to search.
          if ((int32_t)r.sub <= tk::vloadi(&p->best)) {
            tk::start(&w, r, &st, p, seed);
            took = clock64();
            has = true;
          }
        }
        // The warp's change to Pass.idle, made at once: those that found no root are
        // idle, those that found one no longer.
        const unsigned nowIdle = __ballot_sync(warp, wants && !has && !w.idle);
        const unsigned nowBusy = __ballot_sync(warp, has && w.idle);
        if (wants) w.idle = !has;
        uint32_t end = 0;
        if (lane == asker) {
          int d = __popc(nowIdle) - __popc(nowBusy);
          if (d != 0) atomicAdd(&p->idle, (uint32_t)d);
          if (got > 0) {
            w.claims++;
          } else {
            w.misses++;
            end = tk::passOver(p) ? 1 : 0;
          }
        }
        end = __shfl_sync(warp, end, asker);
        if (end != 0 && wants) over = true;
        if (got > 0) {
          wait = 128;
          askAt = 0;
        } else {
          askAt = now + 2 * (long long)wait;  // about wait ns: clocks are 1.1-2 GHz
          wait = wait < waitMax ? 2 * wait : waitMax;
        }
      }
    }
    if (w.active && tk::stepOf(&w, p, &st, budget)) {
      tk::finish(&w, p);
      busy += clock64() - took;
    }
    if (__all_sync(warp, over)) break;
    if (!__any_sync(warp, w.active)) {
      // Nothing to search in the whole warp: sleep, and ask at once after.
      __nanosleep(wait);
      askAt = 0;
    }
  }
  atomicAdd(&p->busy, (unsigned long long)busy);
  atomicAdd(&p->cycles, (unsigned long long)(clock64() - begin));
  if (w.claims != 0) atomicAdd(&p->claims, w.claims);
  if (w.misses != 0) atomicAdd(&p->misses, w.misses);
}

// Each kind's entry searches one pass below the frontier p->roots: ida_pass with the
// Manhattan distance (search.h), ida_pass_set with a set (set.h), ida_pass_cat with a
// catalogue of zero-aware tables, each root starting from its seed (cat.h).
#define TK_ENTRY(entry, W, fn) \
  extern "C" __global__ void __launch_bounds__(256, 4) entry(tk::Pass* p, const tk::Tables* t) { run<tk::W>(p, t); }
TK_KINDS(TK_ENTRY)
#undef TK_ENTRY

// trap is a kernel that faults, for the tests of a failed launch; it takes ida_pass's
// arguments, so that it is launched the same way.
extern "C" __global__ void trap(tk::Pass* p, const tk::Tables* t) {
  if (p == nullptr || t != nullptr) __trap();
  __trap();
}
