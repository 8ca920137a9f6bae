//go:build js && wasm

// Command wasm is the toolkit's solver compiled to WebAssembly for the static page: it runs
// in a Web Worker (web/site/static/worker.js) and answers the page's requests as the HTTP API
// would, through package api, with the tables embedded in the binary.
//
// It defines one JavaScript function, tilekitHandle(op, body, progress), which returns a
// Promise of {status, body}: op is "options", "check", "shuffle" or "solve"; body is the
// request, an object as the HTTP API's JSON would be; progress(bound, nodes, seconds)
// hears of a running search. Bodies are read and answers shaped through api's trees
// (api.FromTree, api.Tree), so no JSON package is linked. The
// search runs in a goroutine, not in the callback, as Go's WebAssembly port requires of
// work that may wait. A search cannot be interrupted from JavaScript while it runs (the
// worker's only thread is busy): the page stops one by terminating the worker.
//
// Build it with `go generate ./web/site` (GOOS=js GOARCH=wasm).
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"syscall/js"
	"time"
	"unsafe"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/tablefile"
	"github.com/tilekit/tilekit/web/api"
)

func main() {
	tablefile.SetSHA256(browserSHA256)
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
// table's decoded payload is up to 259 MB), Go's for small ones or where the page gives no
// tilekitDigestMemory(addr, n) (worker.js: crypto.subtle.digest of the module's memory
// there, without a copy into a new array first). It waits for the browser's Promise,
// which Go's WebAssembly port allows in a goroutine: every request runs in one
// (promise).
func browserSHA256(b []byte) [32]byte {
	digestMemory := js.Global().Get("tilekitDigestMemory")
	if len(b) < 64<<10 || digestMemory.Type() != js.TypeFunction {
		return sha256.Sum256(b)
	}
	done := make(chan js.Value, 1)
	resolve := js.FuncOf(func(this js.Value, args []js.Value) any { done <- args[0]; return nil })
	defer resolve.Release()
	reject := js.FuncOf(func(this js.Value, args []js.Value) any { done <- js.Null(); return nil })
	defer reject.Release()
	// The browser copies the bytes out of the module's memory when called (WebCrypto's
	// digest takes a copy first), so a memory that grows while it hashes does not matter;
	// b stays alive until the answer, and Go's collector does not move it.
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	digestMemory.Invoke(addr, len(b)).Call("then", resolve, reject)
	digest := <-done
	runtime.KeepAlive(b)
	if digest.IsNull() {
		return sha256.Sum256(b)
	}
	var sum [32]byte
	js.CopyBytesToGo(sum[:], js.Global().Get("Uint8Array").New(digest))
	return sum
}

// handle answers one request with a Promise.
func handle(this js.Value, args []js.Value) any {
	if len(args) != 3 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeObject || args[2].Type() != js.TypeFunction {
		return promise(func() (int, any) {
			return api.Answer(nil, &api.Error{Status: api.BadRequest, Err: errors.New("tilekitHandle(op, body, progress): op is a string, body an object, progress a function")})
		})
	}
	op, progress := args[0].String(), args[2]
	body, err := fromJS(args[1], 0, new(int))
	return promise(func() (int, any) {
		if err != nil {
			return api.Answer(nil, err)
		}
		switch op {
		case "options":
			return api.OK, api.Options()
		case "check":
			var req api.Puzzle
			if err := api.FromTree(body, &req); err != nil {
				return api.Answer(nil, err)
			}
			return api.Answer(api.Check(&req))
		case "shuffle":
			var req api.ShuffleRequest
			if err := api.FromTree(body, &req); err != nil {
				return api.Answer(nil, err)
			}
			return api.Answer(api.Shuffle(&req))
		case "solve":
			var req api.SolveRequest
			if err := api.FromTree(body, &req); err != nil {
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
// {status, body}, the body an object as the HTTP API's JSON would be (api.Tree).
func promise(work func() (int, any)) js.Value {
	executor := js.FuncOf(func(this js.Value, args []js.Value) any {
		resolve := args[0]
		go func() {
			defer func() {
				// A bug must not end the runtime, which would leave the page without a
				// solver: it is answered like any failure.
				if r := recover(); r != nil {
					resolve.Invoke(map[string]any{"status": api.Failed, "body": api.Tree(api.ErrorBody(fmt.Errorf("internal error: %v", r)))})
				}
			}()
			status, body := work()
			resolve.Invoke(map[string]any{"status": status, "body": api.Tree(body)})
		}()
		return nil
	})
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

// fromJS reads a request from JavaScript as a tree (api.FromTree): objects, arrays,
// strings, numbers, booleans and null, at most api.MaxTreeNodes values and 32 levels deep.
func fromJS(v js.Value, depth int, count *int) (any, error) {
	if *count++; *count > api.MaxTreeNodes || depth > 32 {
		return nil, &api.Error{Status: api.BadRequest, Err: fmt.Errorf("more than %d values, or deeper than 32 levels, in the request", api.MaxTreeNodes)}
	}
	switch v.Type() {
	case js.TypeNull, js.TypeUndefined:
		return nil, nil
	case js.TypeString:
		return v.String(), nil
	case js.TypeNumber:
		return v.Float(), nil
	case js.TypeBoolean:
		return v.Bool(), nil
	case js.TypeObject:
		if js.Global().Get("Array").Call("isArray", v).Bool() {
			out := make([]any, 0, min(v.Length(), api.MaxTreeNodes))
			for i := 0; i < v.Length() && *count <= api.MaxTreeNodes; i++ {
				x, err := fromJS(v.Index(i), depth+1, count)
				if err != nil {
					return nil, err
				}
				out = append(out, x)
			}
			return out, nil
		}
		out := map[string]any{}
		keys := js.Global().Get("Object").Call("keys", v)
		for i := 0; i < keys.Length(); i++ {
			k := keys.Index(i).String()
			x, err := fromJS(v.Get(k), depth+1, count)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	}
	return nil, &api.Error{Status: api.BadRequest, Err: fmt.Errorf("a %s in the request", v.Type())}
}
