package site

// The page's WebAssembly solver and Go's JavaScript glue (static/tilekit.wasm,
// static/wasm_exec.js) are rebuilt by the test that checks them:
//
//go:generate go test -run TestWasmIsCurrent -update .
