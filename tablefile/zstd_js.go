//go:build js

package tablefile

import "context"

// Compiled to WebAssembly, the package links no zstd library, which would double the
// page's solver: it reads stored frames only (decodeStored) and writes them.

func compress(_ context.Context, data []byte, frameBytes int) ([]byte, error) {
	return storedFrames(data, frameBytes), nil
}

type decoder struct{}

func newDecoder(int64) func() (decoder, error) {
	return func() (decoder, error) { return decoder{}, nil }
}

func closeDecoder(decoder) {}

func (decoder) decode(frame, out []byte) error { return decodeStored(frame, out) }
