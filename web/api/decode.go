//go:build !js

package api

import (
	"bytes"
	"encoding/json"
)

// The server reads JSON bodies; the page's WebAssembly gets its requests as JavaScript
// objects and links no JSON package (package web/wasm).

// Decode reads a request body into v: at most MaxBody bytes holding one JSON object, with
// no field that v does not have (FromTree).
func Decode(body []byte, v any) error {
	if len(body) > MaxBody {
		return ErrTooLarge
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return bad("bad JSON: %v", err)
	}
	if dec.More() {
		return bad("bad JSON: more than one value in the body")
	}
	return FromTree(tree, v)
}
