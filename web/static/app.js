// The page's logic: the board, moves, shuffling, and solving through the JSON API.
"use strict";

const $ = (id) => document.getElementById(id);

const game = {
  w: 4, h: 4,
  goal: [],        // goal arrangement
  state: [],       // current arrangement, row-major, 0 = blank
  start: null,     // arrangement the current solution starts from
  solution: null,  // {moves: "ULDR...", ...} from the server
  step: 0,         // moves of the solution played so far
  timer: null,     // animation timer
  job: null,       // id of the running search
  made: 0,         // moves made by hand
};

// Blank directions: where the blank goes.
const DIRS = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function size() { return $("size").value; }
function goalName() { return $("goal").value; }

function say(text, ok) {
  $("message").textContent = text;
  $("message").className = ok ? "message ok" : "message";
}

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
  if (game.timer || game.job) return;
  if (blankDir(dir)) {
    game.made++;
    forgetSolution();
    render();
  }
}

function forgetSolution() {
  game.solution = null;
  $("result").hidden = true;
}

async function setup() {
  const [w, h] = size().split("x").map(Number);
  game.w = w; game.h = h;
  const data = await api("POST", "/api/shuffle", { board: size(), goal: goalName(), moves: 1 });
  game.goal = data.goal;
  game.state = data.goal.slice();
  game.made = 0;
  forgetSolution();
  $("status").textContent = "";
  say("");
  render();
}

async function shuffle(moves) {
  stopPlaying();
  try {
    const data = await api("POST", "/api/shuffle", { board: size(), goal: goalName(), moves });
    game.state = data.state;
    game.goal = data.goal;
    game.made = 0;
    forgetSolution();
    say(moves ? `Shuffled by ${moves} random moves.` : "A uniformly random solvable state.", true);
    render();
  } catch (e) { say(e.message); }
}

async function setPosition() {
  try {
    const data = await api("POST", "/api/check", { board: size(), goal: goalName(), state: $("position").value });
    stopPlaying();
    game.state = data.state;
    game.made = 0;
    forgetSolution();
    say("Position set.", true);
    render();
  } catch (e) { say(e.message); }
}

async function solve() {
  stopPlaying();
  forgetSolution();
  const start = game.state.slice();
  let job;
  try {
    job = await api("POST", "/api/solve", {
      board: size(), goal: goalName(), state: start,
      algo: $("algo").value, heuristic: $("heuristic").value,
      timeout_seconds: Number($("timeout").value) || 60,
    });
  } catch (e) { $("status").textContent = "Cannot solve: " + e.message; return; }
  game.job = job.id;
  $("solve").disabled = true;
  $("stop").disabled = false;
  $("status").textContent = "Searching...";
  while (game.job === job.id) {
    await new Promise((r) => setTimeout(r, 150));
    let v;
    try { v = await api("GET", "/api/jobs/" + job.id); } catch (e) { $("status").textContent = e.message; break; }
    if (v.status === "running") {
      const bound = v.bound ? `bound ${v.bound}, ` : "";
      $("status").textContent = `Searching... ${bound}${v.nodes.toLocaleString()} nodes, ${v.seconds.toFixed(1)} s`;
      continue;
    }
    if (v.status === "solved") {
      game.start = start;
      game.solution = v.result;
      game.step = 0;
      showResult(v.result);
      $("status").textContent = `Solved in ${v.result.seconds.toFixed(3)} s.`;
    } else {
      $("status").textContent = `${v.status}: ${v.error || ""}`;
    }
    break;
  }
  game.job = null;
  $("solve").disabled = false;
  $("stop").disabled = true;
}

async function stopSearch() {
  if (!game.job) return;
  const id = game.job;
  game.job = null;
  try {
    const v = await api("DELETE", "/api/jobs/" + id);
    $("status").textContent = `Stopped after ${v.nodes.toLocaleString()} nodes (bound ${v.bound}).`;
  } catch (e) { $("status").textContent = e.message; }
  $("solve").disabled = false;
  $("stop").disabled = true;
}

function showResult(r) {
  $("result").hidden = false;
  $("length").textContent = `${r.length} moves`;
  $("optimal").textContent = r.optimal ? "(optimal)" : `(not proven optimal: ${r.algorithm} with ${r.heuristic})`;
  $("dirs").textContent = r.moves || "(none)";
  $("tiles").textContent = (r.tiles || []).join(" ") || "(none)";
  $("stats").textContent = `${r.algorithm}, ${r.heuristic}: ${r.nodes.toLocaleString()} nodes generated, ` +
    `${r.expanded.toLocaleString()} expanded, ${r.seconds.toFixed(3)} s`;
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
