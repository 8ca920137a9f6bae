// The solver's Web Worker: it runs tilekit.wasm (the toolkit compiled to WebAssembly) off
// the page's thread, so the page never freezes, and answers messages
// {id, op, body} with {id, status, body} and, while a search runs, {id, progress}.
"use strict";

importScripts("wasm_exec.js");

const ready = (async () => {
  const go = new Go();
  let wasm;
  try {
    wasm = await WebAssembly.instantiateStreaming(fetch("tilekit.wasm"), go.importObject);
  } catch (e) {
    // A host that serves .wasm without the type application/wasm: compile from bytes.
    const response = await fetch("tilekit.wasm");
    if (!response.ok) throw new Error(`tilekit.wasm: HTTP ${response.status}`);
    wasm = await WebAssembly.instantiate(await response.arrayBuffer(), go.importObject);
  }
  // The solver hashes large inputs with the browser's SHA-256, straight from its memory.
  // (crypto.subtle is there in secure contexts only: elsewhere the solver uses Go's.)
  if (self.crypto && crypto.subtle) {
    self.tilekitDigestMemory = (addr, n) => crypto.subtle.digest("SHA-256", new Uint8Array(go.mem.buffer, addr, n));
  }
  go.run(wasm.instance); // defines tilekitHandle, then waits for requests
})();

// The sets a site offers (solve15 site --sets) are downloaded on demand, kept in the
// browser's cache storage, checked against the manifest's SHA-256 and then, in the solver,
// against every checksum of their files.
const CACHE = "tilekit-sets-v1";

async function sha256(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

// download reads a response's body, reporting the bytes read so far.
async function download(res, progress) {
  const reader = res.body.getReader();
  const parts = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    n += value.length;
    progress(n);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

async function loadSet(id, name) {
  const res = await fetch("sets/manifest.json", { cache: "no-cache" });
  if (!res.ok) throw new Error(`this site offers no sets (sets/manifest.json: HTTP ${res.status})`);
  const set = (await res.json()).sets.find((s) => s.name === name);
  if (!set) throw new Error(`this site does not offer the ${name} set`);
  const total = set.files.reduce((a, f) => a + f.bytes, 0);
  const cache = await caches.open(CACHE);
  const files = {};
  let loaded = 0, cached = 0;
  for (const f of set.files) {
    const url = new URL(`sets/${name}/${f.name}`, self.location).href;
    let bytes = null;
    const hit = await cache.match(url);
    if (hit) {
      bytes = new Uint8Array(await hit.arrayBuffer());
      if (await sha256(bytes) === f.sha256) cached += bytes.length;
      else { await cache.delete(url); bytes = null; }
    }
    if (!bytes) {
      const r = await fetch(url, { cache: "no-store" });
      if (!r.ok) throw new Error(`${f.name}: HTTP ${r.status}`);
      bytes = await download(r, (n) => postMessage({ id, progress: { loaded: loaded + n, total } }));
      if (await sha256(bytes) !== f.sha256) throw new Error(`${f.name} is damaged: its SHA-256 is not the manifest's`);
      await cache.put(url, new Response(bytes));
    }
    loaded += bytes.length;
    postMessage({ id, progress: { loaded, total } });
    files[f.name] = bytes;
  }
  const answer = await tilekitLoad(name, files);
  const body = answer.body;
  if (answer.status !== 200) {
    for (const f of set.files) await cache.delete(new URL(`sets/${name}/${f.name}`, self.location).href);
  }
  return { status: answer.status, body: Object.assign(body, { bytes: total, source: cached === total ? "cache" : "network" }) };
}

onmessage = async (event) => {
  const { id, op, body } = event.data;
  try {
    await ready;
    let answer;
    if (op === "loadSet") {
      answer = await loadSet(id, body.name);
      postMessage({ id, status: answer.status, body: answer.body });
      return;
    }
    const progress = (bound, nodes, seconds) => postMessage({ id, progress: { bound, nodes, seconds } });
    answer = await tilekitHandle(op, body || {}, progress);
    postMessage({ id, status: answer.status, body: answer.body });
  } catch (e) {
    postMessage({ id, status: 500, body: { error: e && e.message ? e.message : String(e) } });
  }
};
