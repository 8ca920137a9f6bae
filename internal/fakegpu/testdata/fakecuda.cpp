// A fake libcuda.so.1 for the tests of package gpu on machines without a GPU. Its "device"
// memory is host memory, and a launch of ida_pass runs the kernel's search on the host
// (pass.h) with the launch's threads as virtual threads, so that the Go side is tested end
// to end. TK_FAKE_CUDA makes it fail on purpose:
//   init    cuInit fails              none   no device          old     compute capability 7.0
//   jit     the PTX does not compile  small  1 MB of memory     launch  every kernel faults
//   slow    every launch first sleeps for 0.2 s
//   biglocal  a kernel's threads take 16 MB of local memory each (hugelocal: 1 GB)
// TK_FAKE_SMS and TK_FAKE_BLOCKS set its multiprocessors (2) and the blocks of 256 threads
// each runs (1): 132 and 4 launch an H100's threads, to see how a pass's work is shared
// among them. TK_FAKE_LOG names a file to which each launch appends a line: its kernel,
// threads, roots (or a level's nodes), step (7 nodes), rounds (the launch's time in steps
// of one thread), and the pass's busy and cycles so far.
// Built by the tests: g++ -shared -fPIC -o libcuda.so.1 fakecuda.cpp (-DTK_FAKE_MISSING
// leaves cuMemsetD8_v2 out).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vector>

#include "../../../gpu/kernel/emulate.h"

typedef int CUresult;

static const char* mode() {
  const char* m = getenv("TK_FAKE_CUDA");
  return m ? m : "";
}
static bool is(const char* m) { return strcmp(mode(), m) == 0; }
static int env(const char* name, int def) {
  const char* v = getenv(name);
  return v != nullptr && atoi(v) > 0 ? atoi(v) : def;
}

static bool sticky = false;  // a kernel faulted: every call fails


static uint64_t allocated = 0;

extern "C" {

CUresult cuInit(unsigned) { return is("init") ? 3 : 0; }  // CUDA_ERROR_NOT_INITIALIZED
CUresult cuDriverGetVersion(int* v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int* n) { *n = is("none") ? 0 : 1; return 0; }
CUresult cuDeviceGet(int* d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char* name, int n, int) {
  strncpy(name, "Fake GPU", n);
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t* b, int) { *b = is("small") ? 1u << 20 : 80ull << 30; return 0; }
CUresult cuDeviceGetAttribute(int* v, int attr, int) {
  switch (attr) {
    case 16: *v = env("TK_FAKE_SMS", 2); break;  // multiprocessors
    case 39: *v = 2048; break;                   // threads a multiprocessor holds at once
    case 75: *v = is("old") ? 7 : 9; break;     // compute capability
    case 76: *v = 0; break;
    default: *v = 0;
  }
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
  if (sticky) return 719;
  *ctx = (void*)0x1;
  return 0;
}
// As driver 580 does: a failed kernel's error outlives the context, for the whole process.
CUresult cuDevicePrimaryCtxRelease_v2(int) { return 0; }
CUresult cuCtxSetCurrent(void*) { return 0; }
CUresult cuCtxSynchronize() { return sticky ? 719 : 0; }  // CUDA_ERROR_LAUNCH_FAILED

CUresult cuModuleLoadDataEx(void** mod, const void* image, unsigned n, int* opts, void** vals) {
  if (is("jit")) {
    for (unsigned i = 0; i < n; i++) {
      if (opts[i] == 5) strcpy((char*)vals[i], "ptxas fatal   : the fake driver compiles nothing");
    }
    return 218;  // CUDA_ERROR_INVALID_PTX
  }
  if (strstr((const char*)image, ".entry ida_pass") == nullptr) return 218;
  *mod = (void*)0x2;
  return 0;
}
// A kernel's handle: trap's, the growth's order's (grow.h), or kKind, kGrowCount or
// kGrowWrite plus the kind's place in kinds.h: its search, its growth's count and write.
static void* const kTrap = (void*)0x11;
static void* const kGrowOrder = (void*)0x12;
enum : uintptr_t { kKind = 0x100, kGrowCount = 0x200, kGrowWrite = 0x300 };

CUresult cuModuleGetFunction(void** fn, void*, const char* name) {
  if (strcmp(name, "trap") == 0) {
    *fn = kTrap;
    return 0;
  }
  if (strcmp(name, "ida_grow_order") == 0) {
    *fn = kGrowOrder;
    return 0;
  }
  uintptr_t i = 0;
#define TK_NAMED_0(entry)
#define TK_NAMED_1(entry)                          \
  if (strcmp(name, #entry "_grow_count") == 0) {   \
    *fn = (void*)(kGrowCount + i);                 \
    return 0;                                      \
  }                                                \
  if (strcmp(name, #entry "_grow_write") == 0) {   \
    *fn = (void*)(kGrowWrite + i);                 \
    return 0;                                      \
  }
#define TK_NAMED(entry, W, f, grows) \
  if (strcmp(name, #entry) == 0) {   \
    *fn = (void*)(kKind + i);        \
    return 0;                        \
  }                                  \
  TK_NAMED_##grows(entry) i++;
  TK_KINDS(TK_NAMED)
#undef TK_NAMED
  return 500;  // CUDA_ERROR_NOT_FOUND
}
CUresult cuModuleUnload(void*) { return 0; }

CUresult cuMemAlloc_v2(uint64_t* p, size_t n) {
  if (sticky) return 719;
  if (is("small") && allocated + n > (1u << 20)) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  void* m = calloc(1, n);
  if (m == nullptr) return 2;
  allocated += n;
  *p = (uint64_t)m;
  return 0;
}
CUresult cuMemFree_v2(uint64_t p) { free((void*)p); return 0; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void* s, size_t n) { if (sticky) return 719; memcpy((void*)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void* d, uint64_t s, size_t n) { if (sticky) return 719; memcpy(d, (const void*)s, n); return 0; }
#ifndef TK_FAKE_MISSING
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { if (sticky) return 719; memset((void*)d, v, n); return 0; }
#endif
CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  *total = is("small") ? 1u << 20 : 80ull << 30;
  *free = *total - allocated;
  return 0;
}
CUresult cuMemHostAlloc(void** p, size_t n, unsigned) { *p = calloc(1, n); return *p ? 0 : 2; }
CUresult cuMemHostGetDevicePointer_v2(uint64_t* d, void* p, unsigned) { *d = (uint64_t)p; return 0; }
CUresult cuMemFreeHost(void* p) { free(p); return 0; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void*, int, size_t) { *n = env("TK_FAKE_BLOCKS", 1); return 0; }
CUresult cuFuncGetAttribute(int* v, int attr, void* fn) {
  if (attr == 4) {  // CU_FUNC_ATTRIBUTE_NUM_REGS: as many as a thread of a card may have
    *v = 255;
    return 0;
  }
  if (attr != 3) return 1;  // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
  if (is("biglocal")) *v = 16 << 20;
  else if (is("hugelocal")) *v = 1 << 30;
  else {
    uintptr_t i = kKind;
#define TK_LOCAL(entry, W, f, grows) \
  if (fn == (void*)i++) *v = sizeof(tk::W);
    TK_KINDS(TK_LOCAL)
#undef TK_LOCAL
  }
  return 0;
}

CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, void*, void** params, void** extra) {
  if (sticky) return 719;
  if (fn == kTrap || is("launch")) {
    sticky = true;  // as a trap: the launch returns, the fault shows at the next sync
    return 0;
  }
  if (is("slow")) usleep(200000);
  if (params != nullptr || extra == nullptr || extra[0] != (void*)1 || extra[2] != (void*)2) return 1;
  uint64_t* args = (uint64_t*)extra[1];
  if (*(size_t*)extra[3] != 16) return 1;
  tk::Pass* p = (tk::Pass*)args[0];
  const tk::Tables* t = (const tk::Tables*)args[1];
  uint32_t threads = gx * gy * gz * bx * by * bz;
  // A few nodes a step, so that the virtual threads interleave finely; a warp's threads
  // take roots between turns of the kernel's length (the tuning's, or tk::kTurn).
  const uint32_t budget = 7;
  const uint32_t turn = tk::turn(p);
  uint64_t rounds = 0;
  const char* kernel = nullptr;
  uint32_t n = p->nroots;
  uintptr_t i = 0;
  // A level's launch of the frontier's growth (grow.h) takes a round of the card's threads
  // for each of them it has (a node a thread, as long as the search's step of 7 nodes):
  // its threads with a node busy, all the card's counted.
  const uint64_t card = (uint64_t)env("TK_FAKE_SMS", 2) * env("TK_FAKE_BLOCKS", 1) * 256;
#define TK_LAUNCH_0(entry, W)
#define TK_LAUNCH_1(entry, W)                                         \
  if (fn == (void*)(kGrowCount + i) || fn == (void*)(kGrowWrite + i)) { \
    bool count = fn == (void*)(kGrowCount + i);                       \
    kernel = count ? #entry "_grow_count" : #entry "_grow_write";     \
    n = p->grow->n;                                                   \
    if (count) tk::emulateGrowCount<tk::W>(p, t, gx);                 \
    else tk::emulateGrowWrite<tk::W>(p, t, gx);                       \
    rounds = (threads + card - 1) / card;                             \
    p->busy += n;                                                     \
    p->cycles += rounds * card;                                       \
  }
#define TK_LAUNCH(entry, W, f, grows)                          \
  if (fn == (void*)(kKind + i)) {                              \
    if (p->threads != 0) return 1; /* they count themselves */ \
    kernel = #entry;                                           \
    rounds = tk::emulate<tk::W>(p, t, threads, budget, turn);  \
  }                                                            \
  TK_LAUNCH_##grows(entry, W) i++;
  TK_KINDS(TK_LAUNCH)
#undef TK_LAUNCH
  if (fn == kGrowOrder) {
    kernel = "ida_grow_order";
    n = p->grow->n;
    tk::emulateGrowOrder(p, gx);
    rounds = (threads + card - 1) / card;
    p->busy += n;
    p->cycles += rounds * card;
  }
  if (kernel == nullptr) return 1;  // not a kernel of this module
  if (const char* log = getenv("TK_FAKE_LOG")) {
    if (FILE* f = fopen(log, "a")) {
      fprintf(f, "%s %u %u %u %llu %llu %llu\n", kernel, threads, n, budget, (unsigned long long)rounds,
              (unsigned long long)p->busy, (unsigned long long)p->cycles);
      fclose(f);
    }
  }
  return 0;
}

CUresult cuGetErrorName(CUresult e, const char** s) {
  switch (e) {
    case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case 3: *s = "CUDA_ERROR_NOT_INITIALIZED"; return 0;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 719: *s = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
  }
  return 1;
}
CUresult cuGetErrorString(CUresult e, const char** s) {
  switch (e) {
    case 2: *s = "out of memory"; return 0;
    case 3: *s = "initialization error"; return 0;
    case 218: *s = "a PTX JIT compilation failed"; return 0;
    case 719: *s = "unspecified launch failure"; return 0;
  }
  return 1;
}

}  // extern "C"
