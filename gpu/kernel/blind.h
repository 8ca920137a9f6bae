// A kind for the tests alone (kinds.h's TK_TEST_KINDS): IDA* with no heuristic, h = 0,
// the recipe for a new kind followed through. Its search is md.h's with another distance.
#ifndef TILEKIT_GPU_BLIND_H
#define TILEKIT_GPU_BLIND_H

#include "md.h"

namespace tk {

// Blind is the distance 0, whatever the move; a node is the goal when every tile of the
// board after the move (the blank from cell blank to q) is home: at Manhattan distance 0.
struct Blind {
  HD static int next(const Tables*, int, uint32_t, uint32_t, uint32_t) { return 0; }
  HD static bool goal(const Tables* t, int, const uint8_t* board, uint32_t blank, uint32_t q) {
    for (uint32_t c = 0; c < t->cells; c++) {
      uint32_t tile = c == blank ? board[q] : c == q ? 0 : board[c];
      if (t->md[tile][c] != 0) return false;
    }
    return true;
  }
};

// BlindWorker is one thread's search with no heuristic.
using BlindWorker = WorkerOf<Blind>;

}  // namespace tk

#endif
