package tablefile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A payload is a run of zstd frames (RFC 8878). This file reads their headers and blocks
// without a zstd library, and writes and decodes stored frames: frames made of raw blocks
// only, which any zstd decoder reads and which need none. The page's WebAssembly reads
// only stored frames (solve15 site writes its tables so), which keeps a decompressor out
// of it; the transfer is compressed by gzip instead, which browsers decode natively.

const (
	zstdMagic     = 0xFD2FB528
	skippableMask = 0xFFFFFFF0
	skippableBase = 0x184D2A50
	maxBlock      = 128 << 10 // Block_Maximum_Size's upper bound
)

// A frameHeader is what the reader needs of a zstd frame header.
type frameHeader struct {
	size        int    // bytes of the header, magic included
	single      bool   // Single_Segment_flag: the window is the content
	hasFCS      bool   // the content size is recorded
	contentSize uint64 // Frame_Content_Size
	dictionary  uint32 // Dictionary_ID, 0 for none
	checksum    bool   // Content_Checksum_flag: 4 bytes follow the last block
}

var errSkippable = errors.New("a skippable frame")

// parseFrameHeader reads the frame header at the start of b (RFC 8878, 3.1.1.1).
func parseFrameHeader(b []byte) (frameHeader, error) {
	var h frameHeader
	if len(b) < 4 {
		return h, errors.New("shorter than a frame's magic number")
	}
	switch magic := binary.LittleEndian.Uint32(b); {
	case magic&skippableMask == skippableBase:
		return h, errSkippable
	case magic != zstdMagic:
		return h, fmt.Errorf("magic number %#08x, want %#08x", magic, zstdMagic)
	}
	if len(b) < 5 {
		return h, errors.New("the frame header is cut short")
	}
	fhd := b[4]
	if fhd&0x08 != 0 {
		return h, errors.New("the frame header's reserved bit is set")
	}
	h.single = fhd&0x20 != 0
	h.checksum = fhd&0x04 != 0
	fcsBytes := [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && h.single {
		fcsBytes = 1
	}
	dictBytes := [4]int{0, 1, 2, 4}[fhd&3]
	p := 5
	if !h.single {
		p++ // Window_Descriptor
	}
	h.size = p + dictBytes + fcsBytes
	if len(b) < h.size {
		return h, errors.New("the frame header is cut short")
	}
	for i := dictBytes - 1; i >= 0; i-- {
		h.dictionary = h.dictionary<<8 | uint32(b[p+i])
	}
	p += dictBytes
	h.hasFCS = fcsBytes > 0
	for i := fcsBytes - 1; i >= 0; i-- {
		h.contentSize = h.contentSize<<8 | uint64(b[p+i])
	}
	if fcsBytes == 2 {
		h.contentSize += 256
	}
	return h, nil
}

// Block types (RFC 8878, 3.1.1.2.2).
const (
	blockRaw = iota
	blockRLE
	blockCompressed
	blockReserved
)

// forBlocks calls fn for each block of the frame whose blocks start at payload[p:], with
// its type, its content size and its bytes in the payload (one byte for an RLE block), and
// returns the offset just past the frame (its checksum included).
func forBlocks(payload []byte, p int, h frameHeader, fn func(kind, size int, body []byte) error) (int, error) {
	for {
		if p+3 > len(payload) {
			return 0, errors.New("the payload ends inside the frame")
		}
		b := uint32(payload[p]) | uint32(payload[p+1])<<8 | uint32(payload[p+2])<<16 // little-endian
		last, kind, size := b&1 == 1, int(b>>1)&3, int(b>>3)
		p += 3
		stored := size
		switch kind {
		case blockRLE: // one byte repeated size times
			stored = 1
		case blockReserved:
			return 0, errors.New("a reserved block type")
		}
		if p+stored > len(payload) {
			return 0, errors.New("the payload ends inside the frame")
		}
		if fn != nil {
			if err := fn(kind, size, payload[p:p+stored]); err != nil {
				return 0, err
			}
		}
		p += stored
		if last {
			break
		}
	}
	if h.checksum {
		p += 4
		if p > len(payload) {
			return 0, errors.New("the payload ends inside the frame's checksum")
		}
	}
	return p, nil
}

// walkFrame checks the zstd frame at payload[off:] (RFC 8878, section 3.1.1): a plain
// frame, single-segment, without a dictionary, whose content size is want; it walks the
// frame's blocks and returns the offset just past the frame.
func walkFrame(payload []byte, off int, want uint64) (int, error) {
	h, err := frameAt(payload, off, want)
	if err != nil {
		return 0, err
	}
	return forBlocks(payload, off+h.size, h, nil)
}

// frameAt reads and checks the header of the frame at payload[off:], as walkFrame does.
func frameAt(payload []byte, off int, want uint64) (frameHeader, error) {
	h, err := parseFrameHeader(payload[off:])
	switch {
	case err == errSkippable:
		return h, err
	case err != nil:
		return h, fmt.Errorf("not a zstd frame: %v", err)
	case !h.single || !h.hasFCS:
		return h, errors.New("not a single-segment frame")
	case h.dictionary != 0:
		return h, errors.New("a frame that needs a dictionary")
	case h.contentSize != want:
		return h, fmt.Errorf("content size %d, want %d", h.contentSize, want)
	}
	return h, nil
}

// storedFrames cuts data into frames of frameBytes bytes, each a single-segment zstd frame
// of raw blocks (its content size recorded, no checksum: decoded-sha256 covers it).
func storedFrames(data []byte, frameBytes int) []byte {
	n := max(1, (len(data)+frameBytes-1)/frameBytes)
	out := make([]byte, 0, len(data)+n*(14+3)+3*(len(data)/maxBlock+n))
	for i := 0; i < n; i++ {
		frame := data[i*frameBytes : min((i+1)*frameBytes, len(data))]
		out = binary.LittleEndian.AppendUint32(out, zstdMagic)
		size := uint64(len(frame))
		switch { // Single_Segment_flag with the smallest Frame_Content_Size field
		case size < 256:
			out = append(out, 0x20, byte(size))
		case size < 256+1<<16:
			out = binary.LittleEndian.AppendUint16(append(out, 0x60), uint16(size-256))
		case size < 1<<32:
			out = binary.LittleEndian.AppendUint32(append(out, 0xA0), uint32(size))
		default:
			out = binary.LittleEndian.AppendUint64(append(out, 0xE0), size)
		}
		for first := true; first || len(frame) > 0; first = false {
			k := min(len(frame), maxBlock)
			h := uint32(k)<<3 | blockRaw<<1
			if k == len(frame) {
				h |= 1 // last block
			}
			out = append(out, byte(h), byte(h>>8), byte(h>>16))
			out = append(out, frame[:k]...)
			frame = frame[k:]
		}
	}
	return out
}

// ErrCompressed is the error of a reader without a zstd decoder (the page's WebAssembly)
// given a frame with compressed blocks.
var ErrCompressed = errors.New("compressed zstd blocks: this reader takes tables written with stored frames (solve15 site writes them)")

// decodeStored decodes the frame at frame[0:] into out, which must be exactly its content:
// raw blocks are copied, RLE blocks repeated, compressed blocks refused (ErrCompressed).
// A block is at most Block_Maximum_Size (128 KiB, and no more than the content), as RFC
// 8878 requires of any decoder.
func decodeStored(frame []byte, out []byte) error {
	h, err := frameAt(frame, 0, uint64(len(out)))
	if err != nil {
		return err
	}
	limit := min(maxBlock, len(out))
	at := 0
	_, err = forBlocks(frame, h.size, h, func(kind, size int, body []byte) error {
		switch {
		case kind == blockCompressed:
			return ErrCompressed
		case size > limit:
			return fmt.Errorf("a block of %d bytes, more than the most allowed (%d)", size, limit)
		case size > len(out)-at:
			return fmt.Errorf("the blocks hold more than the content size %d", len(out))
		case kind == blockRaw:
			copy(out[at:], body)
		default:
			for i := range size {
				out[at+i] = body[0]
			}
		}
		at += size
		return nil
	})
	if err == nil && at != len(out) {
		err = fmt.Errorf("the blocks hold %d bytes, the content size is %d", at, len(out))
	}
	return err
}
