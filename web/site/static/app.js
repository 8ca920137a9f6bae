// The page's logic: the board, moves, shuffling, and solving with tilekit.js (the solver in
// a Web Worker, on WebAssembly).
"use strict";

const $ = (id) => document.getElementById(id);
const solver = new Tilekit();

const game = {
  w: 4, h: 4,
  goal: [],        // goal arrangement
  state: [],       // current arrangement, row-major, 0 = blank
  start: null,     // arrangement the current solution starts from
  solution: null,  // the solver's answer
  step: 0,         // moves of the solution played so far
  timer: null,     // animation timer
  searching: false,
  made: 0,         // moves made by hand
};

// Blank directions: where the blank goes.
const DIRS = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };

function size() { return $("size").value; }
function goalName() { return $("goal").value; }
function count(n) { return Number(n).toLocaleString("en"); }

function say(text, ok) {
  $("message").textContent = text;
  $("message").className = ok ? "message ok" : "message";
}

function status(text) { $("status").textContent = text; }

function blankDir(dir) {
  // Move the blank in direction dir; returns false if it would leave the board.
  const b = game.state.indexOf(0);
  const r = Math.floor(b / game.w) + DIRS[dir][0];
  const c = (b % game.w) + DIRS[dir][1];
  if (r < 0 || r >= game.h || c < 0 || c >= game.w) return false;
  const q = r * game.w + c;
  game.state[b] = game.state[q];
  game.state[q] = 0;
  return true;
}

function isGoal() { return game.state.every((t, i) => t === game.goal[i]); }

function render() {
  const el = $("board");
  el.style.gridTemplateColumns = `repeat(${game.w}, 1fr)`;
  el.innerHTML = "";
  const b = game.state.indexOf(0);
  game.state.forEach((t, i) => {
    const tile = document.createElement("button");
    tile.className = "tile";
    tile.dataset.cell = i;
    if (t === 0) {
      tile.classList.add("blank");
      tile.tabIndex = -1;
      tile.setAttribute("aria-label", "gap");
    } else {
      tile.textContent = t;
      if (game.goal[i] === t) tile.classList.add("home");
      const adjacent = Math.abs(Math.floor(i / game.w) - Math.floor(b / game.w)) + Math.abs((i % game.w) - (b % game.w)) === 1;
      if (adjacent) tile.classList.add("movable");
      tile.addEventListener("click", () => clickTile(i));
    }
    el.appendChild(tile);
  });
  el.dataset.state = game.state.join(",");
  el.dataset.solved = String(isGoal());
  el.classList.toggle("solved", isGoal());
  $("moves-made").textContent = isGoal() ? "Solved!" : `${game.made} moves made`;
}

function clickTile(i) {
  const b = game.state.indexOf(0);
  const dr = Math.floor(i / game.w) - Math.floor(b / game.w);
  const dc = (i % game.w) - (b % game.w);
  const dir = dr === -1 && dc === 0 ? "U" : dr === 1 && dc === 0 ? "D" : dr === 0 && dc === -1 ? "L" : dr === 0 && dc === 1 ? "R" : null;
  if (dir) userMove(dir);
}

function userMove(dir) {
  if (game.timer || game.searching) return;
  if (blankDir(dir)) {
    game.made++;
    positionChanged();
    render();
  }
}

// positionChanged forgets what was said about the previous position.
function positionChanged() {
  game.solution = null;
  $("result").hidden = true;
  status("");
}

// Sets the site offers for download (sets/manifest.json, written by solve15 site --sets).
async function offerSets() {
  let manifest;
  try {
    const res = await fetch("sets/manifest.json", { cache: "no-cache" });
    if (!res.ok) return;
    manifest = await res.json();
  } catch (e) { return; }
  for (const set of manifest.sets || []) {
    const mb = set.files.reduce((a, f) => a + f.bytes, 0) / 1e6;
    const o = document.createElement("option");
    o.value = set.name;
    o.textContent = `${set.name} for ${set.board} (download ${mb.toFixed(1)} MB once)`;
    $("tables").appendChild(o);
  }
  $("tables-row").hidden = (manifest.sets || []).length === 0;
}

// loadTables downloads the chosen set (or takes it from the browser's cache) and selects
// it; on failure it says why and goes back to the embedded tables.
async function loadTables() {
  const name = $("tables").value;
  if (!name) { $("heuristic").value = "auto"; return; }
  const bar = $("download");
  bar.hidden = false; bar.value = 0;
  $("download-text").textContent = "";
  $("solve").disabled = true;
  try {
    const r = await solver.loadSet(name, { onProgress: (p) => {
      bar.max = p.total; bar.value = p.loaded;
      $("download-text").textContent = `${(p.loaded / 1e6).toFixed(1)} of ${(p.total / 1e6).toFixed(1)} MB`;
    } });
    offered = null; // the solver now offers the set too
    if (r.board !== size()) { $("size").value = r.board; await setup(); } else await offer();
    $("heuristic").value = name;
    $("download-text").textContent = r.source === "cache" ? "from this browser's cache" : `${(r.bytes / 1e6).toFixed(1)} MB downloaded`;
    say(`The ${name} set is ready${r.source === "cache" ? " (from this browser's cache)" : ""}.`, true);
  } catch (e) {
    $("tables").value = "";
    $("heuristic").value = "auto";
    $("download-text").textContent = "";
    say(`Could not load the ${name} set: ${e.message}. Using the embedded tables instead.`);
  } finally {
    bar.hidden = true;
    $("solve").disabled = game.searching;
  }
}

let offered = null; // the solver's options: heuristics by board, with their labels

// offer fills the heuristic menu with what the board takes (a set serves its own board),
// as the solver's registry lists them.
async function offer() {
  if (!offered) offered = await solver.options();
  const take = (offered.by_board || {})[size()] || offered.heuristics || [];
  const menu = $("heuristic");
  const chosen = menu.value;
  menu.innerHTML = "";
  for (const name of take) {
    const o = document.createElement("option");
    o.value = name;
    o.textContent = (offered.labels || {})[name] || name;
    menu.appendChild(o);
  }
  menu.value = take.includes(chosen) ? chosen : "auto";
}

async function setup() {
  stopPlaying();
  const [w, h] = size().split("x").map(Number);
  game.w = w; game.h = h;
  try {
    const data = await solver.shuffle({ board: size(), goal: goalName(), moves: 1 });
    game.goal = data.goal;
    game.state = data.goal.slice();
    game.made = 0;
    await offer();
    positionChanged();
    say("");
    render();
    $("solve").disabled = game.searching; // the solver has answered: it is ready
  } catch (e) { say("The solver could not start: " + e.message); status(""); }
}

async function shuffle(moves) {
  stopPlaying();
  try {
    const data = await solver.shuffle({ board: size(), goal: goalName(), moves });
    game.state = data.state;
    game.goal = data.goal;
    game.made = 0;
    positionChanged();
    say(moves ? `Shuffled by ${moves} random moves.` : "A uniformly random solvable position.", true);
    render();
  } catch (e) { say(e.message); }
}

// pendingSet is the position being checked after Set, which Solve waits for: a click on
// Solve right after Set solves the position set, not the one before.
let pendingSet = null;

function setPosition() {
  pendingSet = checkAndSet().finally(() => { pendingSet = null; });
  return pendingSet;
}

async function checkAndSet() {
  try {
    const data = await solver.check($("position").value, { board: size(), goal: goalName() });
    stopPlaying();
    game.state = data.state;
    game.made = 0;
    positionChanged();
    say("Position set.", true);
    render();
  } catch (e) { say("That is not a position of this board: " + e.message.replace(/^board: /, "")); }
}

function describeProgress(p) {
  if (!p) return "";
  const algo = $("algo").value;
  const bound = !p.bound ? "" : algo === "idastar" ? `bound ${p.bound}, ` : `f ${p.bound}, `;
  return `${bound}${count(p.nodes)} nodes, ${p.seconds.toFixed(1)} s`;
}

async function solve() {
  if (pendingSet) await pendingSet;
  stopPlaying();
  positionChanged();
  const start = game.state.slice();
  const algo = $("algo").value;
  const limit = Number($("timeout").value) || 60;
  game.searching = true;
  $("solve").disabled = true;
  $("stop").disabled = false;
  say(""); // "Position set." and the like belong to the position, not to this search
  status("Searching...");
  try {
    const r = await solver.solve(start, {
      board: size(), goal: goalName(), algo, heuristic: algo === "bastar" ? "" : $("heuristic").value,
      timeoutSeconds: limit,
      onProgress: (p) => status("Searching... " + describeProgress(p)),
    });
    game.start = start;
    game.solution = r;
    game.step = 0;
    showResult(r);
    status(r.optimal
      ? `Found a shortest solution: ${r.length} moves, in ${r.seconds.toFixed(3)} s.`
      : `Found a solution of ${r.length} moves in ${r.seconds.toFixed(3)} s; it may not be the shortest.`);
  } catch (e) {
    const p = e.progress;
    const seen = p ? ` after ${count(p.nodes)} nodes` : "";
    const bound = p && p.bound && algo === "idastar" ? `; the shortest solution has at least ${p.bound} moves` : "";
    if (e.stopped) status(`Stopped${seen}${bound}.`);
    else if (e.timedOut) status(`No solution within ${limit} s${seen}${bound}. Raise the time limit, or try another heuristic.`);
    else status("Could not solve: " + e.message);
  }
  game.searching = false;
  $("solve").disabled = false;
  $("stop").disabled = true;
}

function stopSearch() {
  if (game.searching) solver.stop();
}

function showResult(r) {
  $("result").hidden = false;
  $("length").textContent = `${r.length} moves`;
  $("optimal").textContent = r.optimal ? "(optimal)" : `(not proven optimal: ${r.algorithm} with ${r.heuristic})`;
  $("dirs").textContent = r.moves || "(none)";
  $("tiles").textContent = (r.tiles || []).join(" ") || "(none)";
  $("stats").textContent = `${r.algorithm} with ${r.heuristic}: ${count(r.nodes)} nodes generated, ` +
    `${count(r.expanded)} expanded, ${r.seconds.toFixed(3)} s` + (r.pruning ? `; pruning: ${r.pruning}` : "");
  showProgress();
}

function showProgress() {
  if (game.solution) $("progress").textContent = `${game.step} / ${game.solution.length}`;
  $("play").disabled = !game.solution || game.step >= game.solution.length || !!game.timer;
  $("step").disabled = !game.solution || game.step >= game.solution.length || !!game.timer;
  $("pause").disabled = !game.timer;
}

function stepOnce() {
  const sol = game.solution;
  if (!sol || game.step >= sol.length) { stopPlaying(); return; }
  if (game.step === 0 && game.state.join() !== game.start.join()) {
    game.state = game.start.slice();
  }
  blankDir(sol.moves[game.step]);
  game.step++;
  render();
  showProgress();
  if (game.step >= sol.length) stopPlaying();
}

function play() {
  if (!game.solution || game.timer) return;
  game.timer = setInterval(stepOnce, 250);
  showProgress();
}

function stopPlaying() {
  if (game.timer) clearInterval(game.timer);
  game.timer = null;
  showProgress();
}

function init() {
  $("size").addEventListener("change", setup);
  $("goal").addEventListener("change", setup);
  $("shuffle").addEventListener("click", () => shuffle(Math.max(1, Number($("moves").value) || 10)));
  $("random").addEventListener("click", () => shuffle(0));
  $("reset").addEventListener("click", setup);
  $("set").addEventListener("click", setPosition);
  $("position").addEventListener("keydown", (e) => { if (e.key === "Enter") setPosition(); });
  $("solve").addEventListener("click", solve);
  $("tables").addEventListener("change", loadTables);
  offerSets();
  $("algo").addEventListener("change", () => {
    // BA* is defined with its own heuristic, HH, in both directions.
    const ba = $("algo").value === "bastar";
    $("heuristic").disabled = ba;
    $("heuristic").title = ba ? "BA* always uses HH = WD + linear conflicts + MD/3" : "";
  });
  $("stop").addEventListener("click", stopSearch);
  $("play").addEventListener("click", play);
  $("pause").addEventListener("click", stopPlaying);
  $("step").addEventListener("click", stepOnce);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    // An arrow slides a tile that way, so the blank goes the opposite way.
    const dir = { ArrowUp: "D", ArrowDown: "U", ArrowLeft: "R", ArrowRight: "L" }[e.key];
    if (dir) { e.preventDefault(); userMove(dir); }
  });
  setup();
}

init();
