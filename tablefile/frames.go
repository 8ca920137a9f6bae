package tablefile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A payload is a run of zstd frames (RFC 8878). This file reads their headers and walks
// their blocks, checking a payload's layout before anything is decoded or allocated.

const (
	zstdMagic     = 0xFD2FB528
	skippableMask = 0xFFFFFFF0
	skippableBase = 0x184D2A50
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

// skipBlocks follows the blocks of the frame whose blocks start at payload[p:] and
// returns the offset just past the frame (its checksum included).
func skipBlocks(payload []byte, p int, h frameHeader) (int, error) {
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
	return skipBlocks(payload, off+h.size, h)
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
