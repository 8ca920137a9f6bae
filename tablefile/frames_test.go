package tablefile

import (
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Our frame header reader agrees with the zstd library's on frames of every content-size
// width, with and without a checksum, a window or a dictionary.
func TestFrameHeader(t *testing.T) {
	for _, size := range []int{0, 1, 255, 256, 256 + 1<<16 - 1, 256 + 1<<16, 1 << 20} {
		for _, single := range []bool{true, false} {
			for _, sum := range []bool{true, false} {
				enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(single), zstd.WithEncoderCRC(sum))
				require.NoError(t, err)
				frame := enc.EncodeAll(make([]byte, size), nil)
				enc.Close()
				var ref zstd.Header
				require.NoError(t, ref.Decode(frame))
				h, err := parseFrameHeader(frame)
				require.NoError(t, err)
				assert.Equal(t, ref.HeaderSize, h.size, "size %d", size)
				assert.Equal(t, ref.SingleSegment, h.single)
				assert.Equal(t, ref.HasFCS, h.hasFCS)
				if ref.HasFCS {
					assert.Equal(t, ref.FrameContentSize, h.contentSize, "size %d", size)
				}
				assert.Equal(t, ref.HasCheckSum, h.checksum)
				end, err := skipBlocks(frame, h.size, h)
				require.NoError(t, err)
				assert.Equal(t, len(frame), end, "the blocks end where the frame does")
			}
		}
	}
	dict := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x22, 0x07, 0x01, 0x05} // single segment, 2-byte dictionary ID, 1-byte size
	h, err := parseFrameHeader(dict)
	require.NoError(t, err)
	assert.Equal(t, uint32(0x0107), h.dictionary)
	assert.Equal(t, uint64(5), h.contentSize)
	for _, b := range [][]byte{nil, {0x28, 0xb5}, {0x28, 0xb5, 0x2f, 0xfd}, {0x28, 0xb5, 0x2f, 0xfd, 0x08}, {0x28, 0xb5, 0x2f, 0xfd, 0xe0, 1, 2}} {
		_, err := parseFrameHeader(b)
		assert.Error(t, err, "%x", b)
	}
}
