package tablefile

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zstdDecode decodes a run of frames with the zstd library, the reference.
func zstdDecode(t testing.TB, frames []byte) []byte {
	t.Helper()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	require.NoError(t, err)
	defer dec.Close()
	out, err := dec.DecodeAll(frames, nil)
	require.NoError(t, err)
	return out
}

// Stored frames decode, with the zstd library and with decodeStored, to what was stored:
// sizes on each side of every Frame_Content_Size width and of the 128 KiB block bound,
// and data cut into several frames.
func TestStoredFrames(t *testing.T) {
	for _, tc := range []struct{ size, frameBytes int }{
		{0, FrameBytes}, {1, FrameBytes}, {255, FrameBytes}, {256, FrameBytes},
		{256 + 1<<16 - 1, FrameBytes}, {256 + 1<<16, FrameBytes},
		{maxBlock, FrameBytes}, {maxBlock + 1, FrameBytes}, {3*maxBlock + 7, FrameBytes},
		{1000, 300}, {5 * maxBlock, 2*maxBlock + 5},
	} {
		data := make([]byte, tc.size)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		frames := storedFrames(data, tc.frameBytes)
		if tc.size > 0 {
			assert.Equal(t, data, zstdDecode(t, frames), "size %d", tc.size)
		}
		// Frame by frame, as Decode walks them.
		got := make([]byte, 0, tc.size)
		off := 0
		for k := 0; k == 0 || len(got) < tc.size; k++ {
			want := min(tc.frameBytes, tc.size-len(got))
			end, err := walkFrame(frames, off, uint64(want))
			require.NoError(t, err, "size %d frame %d", tc.size, k)
			out := make([]byte, want)
			require.NoError(t, decodeStored(frames[off:end], out))
			got = append(got, out...)
			off = end
		}
		assert.Equal(t, len(frames), off, "size %d: nothing after the frames", tc.size)
		assert.Equal(t, data, got, "size %d", tc.size)
	}
}

// A table written with stored frames reads back the same, natively, with the same
// decoded checksum and a payload barely larger than its decoded bytes.
func TestMarshalStored(t *testing.T) {
	tab := sample(t)
	stored, err := tab.MarshalStored(context.Background())
	require.NoError(t, err)
	back, err := Decode(bytes.NewReader(stored))
	require.NoError(t, err)
	assert.Equal(t, tab.Entries, back.Entries)
	assert.Equal(t, sample(t).DecodedSHA, back.DecodedSHA)
	assert.Less(t, back.PayloadBytes, int64(len(tab.Entries))+20)
	again, err := back.MarshalStored(context.Background())
	require.NoError(t, err)
	assert.Equal(t, stored, again, "deterministic")
}

// decodeStored refuses what a reader without zstd cannot or must not read.
func TestDecodeStoredRefuses(t *testing.T) {
	data := bytes.Repeat([]byte("tilekit "), 100)
	enc, err := zstd.NewWriter(nil, zstd.WithSingleSegment(true), zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	defer enc.Close()
	compressed := enc.EncodeAll(data, nil)
	stored := storedFrames(data, FrameBytes)
	// A raw block claiming more than 128 KiB, in a frame whose content says as much.
	big := storedFrames(make([]byte, maxBlock+1), FrameBytes)
	oversize := append([]byte(nil), big[:9]...)
	h := uint32(maxBlock+1)<<3 | 1
	oversize = append(append(oversize, byte(h), byte(h>>8), byte(h>>16)), make([]byte, maxBlock+1)...)
	for _, tc := range []struct {
		name  string
		frame []byte
		size  int
		msg   string
	}{
		{"compressed blocks", compressed, len(data), "compressed zstd blocks"},
		{"content size", stored, len(data) - 1, "content size 800, want 799"},
		{"cut short", stored[:len(stored)-1], len(data), "ends inside the frame"},
		{"block over 128 KiB", oversize, maxBlock + 1, "more than the most allowed"},
		{"not a frame", []byte("tilekit-table"), 3, "not a zstd frame"},
		{"empty", nil, 0, "not a zstd frame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeStored(tc.frame, make([]byte, tc.size))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	assert.True(t, errors.Is(decodeStored(compressed, make([]byte, len(data))), ErrCompressed))
}

// Whatever decodeStored accepts, zstd decodes to the same bytes; nothing makes it panic
// or write outside its output.
func FuzzDecodeStored(f *testing.F) {
	f.Add(storedFrames([]byte("tilekit"), FrameBytes), 7)
	f.Add(storedFrames(make([]byte, 300), FrameBytes), 300)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 3, 0x13, 0, 0, 'a'}, 3) // an RLE block
	f.Fuzz(func(t *testing.T, frame []byte, size int) {
		if size < 0 || size > 1<<20 {
			return
		}
		out := make([]byte, size)
		if decodeStored(frame, out) != nil {
			return
		}
		end, err := walkFrame(frame, 0, uint64(size))
		require.NoError(t, err)
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		require.NoError(t, err)
		defer dec.Close()
		if ref, err := dec.DecodeAll(frame[:end], nil); err == nil {
			require.Equal(t, string(ref), string(out))
		}
	})
}
