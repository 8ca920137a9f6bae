package tablefile

import (
	"bytes"
	"context"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// compress cuts data into frames of frameBytes bytes and compresses each as one
// single-segment zstd frame (its content size recorded, its window the whole frame).
func compress(ctx context.Context, data []byte, frameBytes int) ([]byte, error) {
	n := max(1, (len(data)+frameBytes-1)/frameBytes)
	frames := make([][]byte, n)
	err := parallel(ctx, n, newEncoder, func(enc *zstd.Encoder) { enc.Close() }, func(enc *zstd.Encoder, i int) error {
		frames[i] = enc.EncodeAll(data[i*frameBytes:min((i+1)*frameBytes, len(data))], nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bytes.Join(frames, nil), nil
}

// newEncoder makes the encoder of one goroutine: one goroutine per encoder and a fixed
// level make the bytes a function of the input; a single segment records the content
// size.
func newEncoder() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
}

// A decoder decodes one frame into out, which is exactly its content.
type decoder struct{ z *zstd.Decoder }

// newDecoder returns the maker of decoders that use at most limit bytes (zstd's minimum
// window when smaller). They skip the frames' own content checksums: decoded-sha256
// covers the same bytes, and the page's WebAssembly has no assembly for the other hash.
func newDecoder(limit int64) func() (decoder, error) {
	return func() (decoder, error) {
		limit := max(uint64(limit), zstd.MinWindowSize)
		z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderMaxWindow(limit), zstd.IgnoreChecksum(true))
		return decoder{z}, err
	}
}

func closeDecoder(d decoder) { d.z.Close() }

func (d decoder) decode(frame, out []byte) error {
	got, err := d.z.DecodeAll(frame, out[:0:len(out)])
	if err != nil {
		return fmt.Errorf("zstd: %v", err)
	}
	if len(got) != len(out) || (len(got) > 0 && &got[0] != &out[0]) {
		return fmt.Errorf("decodes to %d bytes, want %d", len(got), len(out))
	}
	return nil
}
