//go:build js && wasm

// Command wasm is the toolkit's solver compiled to WebAssembly for the static page: it runs
// in a Web Worker (web/static/worker.js) and answers the page's requests as the HTTP API
// would, through package api, with the tables embedded in the binary.
//
// It defines one JavaScript function, tilekitHandle(op, body, progress), which returns a
// Promise of {status, body}: op is "options", "check", "shuffle" or "solve"; body is the
// request as JSON text; progress(bound, nodes, seconds) hears of a running search. The
// search runs in a goroutine, not in the callback, as Go's WebAssembly port requires of
// work that may wait. A search cannot be interrupted from JavaScript while it runs (the
// worker's only thread is busy): the page stops one by terminating the worker.
//
// Build it with `go generate ./web` (GOOS=js GOARCH=wasm).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"
	"time"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/web/api"
)

func main() {
	tablefile.SHA256 = browserSHA256
	js.Global().Set("tilekitHandle", js.FuncOf(handle))
	js.Global().Set("tilekitLoad", js.FuncOf(load))
	select {} // serve requests until the worker ends
}

// load takes a downloaded set: tilekitLoad(name, files) with files an object of
// Uint8Arrays by file name; it returns a Promise of {status, body} as tilekitHandle does.
func load(this js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeObject {
		return promise(func() (int, any) {
			return api.Answer(nil, &api.Error{Status: api.BadRequest, Err: errors.New("tilekitLoad(name, files): a name and an object of Uint8Arrays")})
		})
	}
	name := args[0].String()
	files := map[string][]byte{}
	keys := js.Global().Get("Object").Call("keys", args[1])
	for i := 0; i < keys.Length(); i++ {
		k := keys.Index(i).String()
		v := args[1].Get(k)
		n := v.Get("length").Int()
		if n > data.MaxSetFile {
			return promise(func() (int, any) {
				return api.Answer(nil, &api.Error{Status: api.TooLarge, Err: fmt.Errorf("%s: %d bytes, more than a set file has", k, n)})
			})
		}
		b := make([]byte, n)
		js.CopyBytesToGo(b, v)
		files[k] = b
	}
	return promise(func() (int, any) { return api.Answer(api.LoadSet(name, files)) })
}

// browserSHA256 computes SHA-256 with the browser's crypto.subtle for large inputs (a
// table's decoded payload is up to 259 MB), Go's for small ones. It waits for the
// browser's Promise, which Go's WebAssembly port allows in a goroutine: every request
// runs in one (promise).
func browserSHA256(b []byte) [32]byte {
	subtle := js.Global().Get("crypto").Get("subtle")
	if len(b) < 64<<10 || subtle.IsUndefined() {
		return sha256.Sum256(b)
	}
	buf := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(buf, b)
	done := make(chan js.Value, 1)
	resolve := js.FuncOf(func(this js.Value, args []js.Value) any { done <- args[0]; return nil })
	defer resolve.Release()
	reject := js.FuncOf(func(this js.Value, args []js.Value) any { done <- js.Null(); return nil })
	defer reject.Release()
	subtle.Call("digest", "SHA-256", buf).Call("then", resolve, reject)
	digest := <-done
	if digest.IsNull() {
		return sha256.Sum256(b)
	}
	var sum [32]byte
	js.CopyBytesToGo(sum[:], js.Global().Get("Uint8Array").New(digest))
	return sum
}

// handle answers one request with a Promise.
func handle(this js.Value, args []js.Value) any {
	if len(args) != 3 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString || args[2].Type() != js.TypeFunction {
		return promise(func() (int, any) {
			return api.Answer(nil, &api.Error{Status: api.BadRequest, Err: errors.New("tilekitHandle(op, body, progress): op and body are strings, progress a function")})
		})
	}
	op, body, progress := args[0].String(), args[1].String(), args[2]
	return promise(func() (int, any) {
		switch op {
		case "options":
			return api.OK, api.Options()
		case "check":
			var req api.Puzzle
			if err := api.Decode([]byte(body), &req); err != nil {
				return api.Answer(nil, err)
			}
			return api.Answer(api.Check(&req))
		case "shuffle":
			var req api.ShuffleRequest
			if err := api.Decode([]byte(body), &req); err != nil {
				return api.Answer(nil, err)
			}
			return api.Answer(api.Shuffle(&req))
		case "solve":
			var req api.SolveRequest
			if err := api.Decode([]byte(body), &req); err != nil {
				return api.Answer(nil, err)
			}
			job, err := req.Prepare(time.Hour, time.Hour) // the page keeps the time limit
			if err != nil {
				return api.Answer(nil, err)
			}
			begin := time.Now()
			sol, err := job.Run(context.Background(), func(bound int, nodes uint64) {
				progress.Invoke(bound, float64(nodes), time.Since(begin).Seconds())
			}, 100*time.Millisecond)
			return api.Answer(sol, err)
		}
		return api.Answer(nil, &api.Error{Status: api.BadRequest, Err: fmt.Errorf("unknown request %q", op)})
	})
}

// promise runs work in a goroutine and resolves a JavaScript Promise with
// {status, body}, the body as JSON text.
func promise(work func() (int, any)) js.Value {
	executor := js.FuncOf(func(this js.Value, args []js.Value) any {
		resolve := args[0]
		go func() {
			defer func() {
				// A bug must not end the runtime, which would leave the page without a
				// solver: it is answered like any failure.
				if r := recover(); r != nil {
					text, _ := json.Marshal(api.ErrorBody(fmt.Errorf("internal error: %v", r)))
					resolve.Invoke(map[string]any{"status": api.Failed, "body": string(text)})
				}
			}()
			status, body := work()
			text, err := json.Marshal(body)
			if err != nil {
				status, text = api.Failed, []byte(`{"error":"cannot encode the answer"}`)
			}
			resolve.Invoke(map[string]any{"status": status, "body": string(text)})
		}()
		return nil
	})
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}
