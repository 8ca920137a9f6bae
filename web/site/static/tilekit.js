// tilekit.js: the toolkit's optimal sliding-tile solver for any web page, running in a
// Web Worker on WebAssembly (no server). Serve this file with worker.js, wasm_exec.js and
// tilekit.wasm from the same folder.
//
//   const solver = new Tilekit();                       // or new Tilekit("path/to/files/")
//   const r = await solver.solve([1,4,2,3, 13,6,7,8, 5,10,11,0, 9,14,15,12],
//       { board: "4x4", goal: "blank-last", onProgress: (p) => console.log(p.bound, p.nodes) });
//   r.length, r.moves ("UULL..."), r.tiles, r.optimal, r.nodes, r.seconds
//   solver.stop();                                      // ends a running search
//
//   await solver.loadSet("7-8", { onProgress: (p) => console.log(p.loaded, p.total) });
//   await solver.solve(state, { heuristic: "7-8" });         // a set the site offers
//
// solve(state, options) returns a Promise. options: board ("3x3", "4x4", "5x5"; default 4x4), goal
// ("blank-last", "blank-first" or a list), algo ("idastar", "astar", "rbfs", "bastar"),
// heuristic ("auto", "6-6-3", "md", ... as /api/options lists), timeoutSeconds (the search
// is stopped after that long), onProgress ({bound, nodes, seconds} while it runs). A
// search that is stopped, times out or fails rejects with an Error whose fields say why:
// stopped or timedOut (true) and progress (the last report).
"use strict";

class Tilekit {
  constructor(base = "") {
    this.base = base;
    this.next = 1;
    this.sets = new Set(); // sets loaded, loaded again (from the cache) into a new worker
    this.start();
  }

  // start runs a fresh worker.
  start() {
    this.pending = new Map();
    this.worker = new Worker(this.base + "worker.js");
    this.worker.onmessage = (event) => {
      const m = event.data;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.progress) {
        p.last = m.progress;
        if (p.onProgress) p.onProgress(m.progress);
        return;
      }
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.status === 200) p.resolve(m.body);
      else p.reject(Object.assign(new Error(m.body.error || "failed"), { status: m.status }));
    };
  }

  // request sends one request to the worker and returns a Promise of its answer.
  request(op, body = {}, onProgress = null, timeoutSeconds = 0) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const p = { resolve, reject, onProgress, last: null, timer: null };
      if (timeoutSeconds > 0) {
        p.timer = setTimeout(() => this.end(id, { timedOut: true }, `no solution within ${timeoutSeconds} s`), timeoutSeconds * 1000);
      }
      this.pending.set(id, p);
      this.worker.postMessage({ id, op, body });
    });
  }

  // end rejects request id and every other pending one, and restarts the worker: a search
  // cannot be interrupted while it runs. The new worker gets the loaded sets again.
  end(id, why, message) {
    const pending = this.pending;
    this.worker.terminate();
    this.start();
    for (const name of this.sets) this.request("loadSet", { name }).catch(() => this.sets.delete(name));
    for (const [key, p] of pending) {
      clearTimeout(p.timer);
      const reason = key === id ? why : { stopped: true };
      p.reject(Object.assign(new Error(key === id ? message : "stopped"), reason, { progress: p.last }));
    }
  }

  solve(state, options = {}) {
    const { onProgress, timeoutSeconds, algo, heuristic, board, goal } = options;
    return this.request("solve", { state, board, goal, algo, heuristic }, onProgress, timeoutSeconds || 0);
  }

  // stop ends the running search, if any: its Promise rejects with stopped set.
  stop() {
    if (this.pending.size > 0) this.end(-1, {}, "stopped");
  }

  check(state, options = {}) { return this.request("check", { state, board: options.board, goal: options.goal }); }
  shuffle(options = {}) { return this.request("shuffle", { board: options.board, goal: options.goal, moves: options.moves || 0, seed: options.seed || 0 }); }
  options() { return this.request("options"); }

  // loadSet downloads a set the site offers (solve15 site --sets), or takes it from the
  // browser's cache, checks it and gives it to the solver: heuristic NAME then uses it.
  // onProgress hears {loaded, total} bytes. It resolves to {name, board, bytes, source}
  // (source "network" or "cache").
  async loadSet(name, options = {}) {
    const r = await this.request("loadSet", { name }, options.onProgress || null);
    this.sets.add(name);
    return r;
  }
}

if (typeof module !== "undefined") module.exports = Tilekit;
