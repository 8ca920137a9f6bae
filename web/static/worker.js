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
  go.run(wasm.instance); // defines tilekitHandle, then waits for requests
})();

onmessage = async (event) => {
  const { id, op, body } = event.data;
  try {
    await ready;
    const progress = (bound, nodes, seconds) => postMessage({ id, progress: { bound, nodes, seconds } });
    const answer = await tilekitHandle(op, JSON.stringify(body || {}), progress);
    postMessage({ id, status: answer.status, body: JSON.parse(answer.body) });
  } catch (e) {
    postMessage({ id, status: 500, body: { error: String(e) } });
  }
};
