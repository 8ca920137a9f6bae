package tablefile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/internal/sysmem"
)

// Marshal returns the table in the file format and completes t's header with what it
// wrote (payload size and checksums). The bytes depend only on the table: frames are
// compressed independently, at a fixed level, on all cores. It stops early with ctx's
// error when ctx is cancelled.
func (t *Table) Marshal(ctx context.Context) ([]byte, error) { return t.MarshalOn(ctx, 0) }

// EncoderBytes is about the memory one goroutine's encoder takes while it compresses a
// frame at the format's level (75 MB measured on a 16 MB frame).
const EncoderBytes = 80 << 20

// MarshalBytes estimates the memory MarshalOn takes on workers goroutines beside the
// table itself, for a table of decoded bytes: an encoder each, and the compressed bytes
// twice (the frames, then the file), at most a quarter of the decoded bytes for the tables
// pdbgen builds.
func MarshalBytes(decoded int64, workers int) int64 {
	frames := max(1, (decoded+FrameBytes-1)/FrameBytes)
	return min(int64(compressWorkers(workers)), frames)*EncoderBytes + decoded/2
}

func compressWorkers(workers int) int {
	if workers <= 0 || workers > runtime.GOMAXPROCS(0) {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// MarshalOn is Marshal on at most workers goroutines (0: all cores), each with an
// encoder (EncoderBytes).
func (t *Table) MarshalOn(ctx context.Context, workers int) ([]byte, error) {
	h := t.Header
	switch h.Encoding {
	case EncodingHalfExcess:
		if err := t.checkPacked(); err != nil {
			return nil, err
		}
	case EncodingBit:
		if int64(len(t.Bitmap)) != h.DecodedBytes() {
			return nil, fmt.Errorf("tablefile: header says %d entries, the bitmap has %d bytes", h.Entries, len(t.Bitmap))
		}
	case EncodingU32:
		if int64(len(t.Words)) != h.Entries {
			return nil, fmt.Errorf("tablefile: header says %d entries, table has %d", h.Entries, len(t.Words))
		}
	default:
		if int64(len(t.Entries)) != h.Entries {
			return nil, fmt.Errorf("tablefile: header says %d entries, table has %d", h.Entries, len(t.Entries))
		}
	}
	parts := t.parts()
	if t.decodedSHA() != h.DecodedSHA {
		return nil, fmt.Errorf("tablefile: entries do not match the header's checksum")
	}
	if h.Version != Version {
		return nil, fmt.Errorf("tablefile: writing version %d files is not supported (this package writes version %d)", h.Version, Version)
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	payload, err := compress(ctx, parts, int(h.FrameBytes), compressWorkers(workers))
	if err != nil {
		return nil, err
	}
	h.PayloadBytes = int64(len(payload))
	h.PayloadSHA = sha256.Sum256(payload)
	head := h.encodeHeader()
	h.HeaderSHA = sha256.Sum256(head)
	var out bytes.Buffer
	out.Grow(len(head) + 90 + len(payload))
	out.Write(head)
	fmt.Fprintf(&out, "header-sha256: %x\n\n", h.HeaderSHA)
	out.Write(payload)
	t.Header = h
	return out.Bytes(), nil
}

// compress cuts the concatenated parts into frames of frameBytes bytes and compresses
// each as one single-segment zstd frame (its content size recorded, its window the whole
// frame).
func compress(ctx context.Context, parts [][]byte, frameBytes, workers int) ([]byte, error) {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	n := max(1, (size+frameBytes-1)/frameBytes)
	frames := make([][]byte, n)
	tightGC.enter()
	defer tightGC.leave()
	err := parallel(ctx, n, workers, newEncoder, func(enc *zstd.Encoder) { enc.Close() }, func(enc *zstd.Encoder, i int) error {
		frames[i] = enc.EncodeAll(span(parts, i*frameBytes, min((i+1)*frameBytes, size)), nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bytes.Join(frames, nil), nil
}

// tightGC lowers the collector's target while tables are compressed: each encoder leaves
// tens of megabytes of garbage a frame, and at the default target (the heap may double
// its live bytes before a collection) a large table's compression would hold twice its
// memory; at a quarter, a collection comes sooner, and the heap is mostly the table's
// bytes, which a collection does not scan.
var tightGC gcTarget

type gcTarget struct {
	mu    sync.Mutex
	users int
	old   int
}

func (g *gcTarget) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users++; g.users == 1 {
		g.old = debug.SetGCPercent(25)
	}
}

func (g *gcTarget) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users--; g.users == 0 {
		debug.SetGCPercent(g.old)
	}
}

// parallel runs fn(codec, i) for i in [0, n) on workers goroutines, each with its own
// codec made by open (and closed by close), until one fails or ctx is done. The encoder and
// the decoder are made by separate functions so that a program that only reads tables
// (the page's WebAssembly) does not link the encoder.
func parallel[C any](ctx context.Context, n, workers int, open func() (C, error), close func(C), fn func(codec C, i int) error) error {
	workers = min(n, workers)
	errs := make([]error, n)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codec, err := open()
			if err == nil {
				defer close(codec)
			}
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= n {
					return
				}
				if err == nil {
					err = ctx.Err()
				}
				if err == nil {
					err = fn(codec, k)
				}
				if err != nil {
					errs[k] = err
					next.Lock()
					i = n // stop the others
					next.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// newEncoder makes the encoder of one goroutine: one goroutine per encoder and a fixed
// level make the bytes a function of the input; a single segment records the content
// size.
func newEncoder() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
}

// newDecoder returns the maker of decoders that use at most limit bytes (zstd's minimum
// window when smaller). They skip the frames' own content checksums: decoded-sha256
// covers the same bytes, and the page's WebAssembly has no assembly for the other hash.
func newDecoder(limit int64) func() (*zstd.Decoder, error) {
	return func() (*zstd.Decoder, error) {
		limit := max(uint64(limit), zstd.MinWindowSize)
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderMaxWindow(limit), zstd.IgnoreChecksum(true))
	}
}

// Encode writes the table in the file format to w.
func (t *Table) Encode(w io.Writer) error {
	b, err := t.Marshal(context.Background())
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Write writes the table to path atomically (package internal/atomicfile): through a
// symbolic link to its target, never over anything but a regular file, and leaving the old
// file untouched on any error or cancellation.
func Write(ctx context.Context, path string, t *Table) error {
	if _, err := atomicfile.Target(path); err != nil { // fail before the compression
		return err
	}
	b, err := t.Marshal(ctx)
	if err != nil {
		return err
	}
	return atomicfile.Write(ctx, path, b)
}

// Read reads and checks the table file at path.
func Read(path string) (*Table, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Check reads the table file at path and checks it as Read does (header, sizes, the layout
// of the zstd frames, every checksum) without keeping its entries: the frames are decoded
// one at a time into one frame's memory and hashed in order. It returns the header.
func Check(path string) (*Header, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := check(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

func check(r io.Reader) (*Header, error) {
	h, payload, err := readChecked(r)
	if err != nil {
		return nil, err
	}
	spans, frameSize, err := frameSpans(h, payload)
	if err != nil {
		return nil, err
	}
	dec, err := newDecoder(frameSize)()
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	total := h.DecodedBytes()
	buf := make([]byte, 0, min(frameSize, total))
	sum := sha256.New()
	for i, sp := range spans {
		want := min(frameSize, total-int64(i)*frameSize)
		got, err := dec.DecodeAll(payload[sp.start:sp.end], buf[:0])
		if err != nil {
			return nil, fmt.Errorf("%w: frame %d: zstd: %v", ErrPayload, i+1, err)
		}
		if int64(len(got)) != want {
			return nil, fmt.Errorf("%w: frame %d decodes to %d bytes, want %d", ErrPayload, i+1, len(got), want)
		}
		sum.Write(got)
	}
	var got [32]byte
	if sum.Sum(got[:0]); got != h.DecodedSHA {
		return nil, fmt.Errorf("%w: decoded-sha256 is %x, the decoded payload hashes to %x", ErrChecksum, h.DecodedSHA, got)
	}
	return h, nil
}

// ReadHeader reads and checks only the header of the table file at path.
func ReadHeader(path string) (*Header, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := DecodeHeader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// open opens a table file, refusing a directory with a clear message.
// A table file must be a regular file (or a link to one): opening a named pipe would wait
// for a writer, possibly forever, and a device could be endless.
func open(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		what := "not a regular file"
		switch {
		case info.IsDir():
			what = "a directory"
		case info.Mode()&os.ModeNamedPipe != 0:
			what = "a named pipe"
		case info.Mode()&os.ModeDevice != 0:
			what = "a device"
		}
		return nil, fmt.Errorf("%s: is %s, not a table file", path, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && !info.Mode().IsRegular() { // replaced meanwhile
		f.Close()
		return nil, fmt.Errorf("%s: is not a regular file, not a table file", path)
	}
	return f, nil
}

// sha256Impl computes the checksums Decode checks (SetSHA256).
var sha256Impl atomic.Pointer[func([]byte) [32]byte]

// SetSHA256 gives Decode a faster implementation of SHA-256 for its checksums (the page's
// WebAssembly hands large inputs to the browser's, ten times faster than Go's compiled to
// WebAssembly); nil restores Go's. It must compute SHA-256: a table is only as safe as
// its checksum.
func SetSHA256(f func([]byte) [32]byte) {
	if f == nil {
		sha256Impl.Store(nil)
		return
	}
	sha256Impl.Store(&f)
}

// sum256 is SHA-256, by the implementation SetSHA256 gave.
func sum256(b []byte) [32]byte {
	if f := sha256Impl.Load(); f != nil {
		return (*f)(b)
	}
	return sha256.Sum256(b)
}

// Decode reads a whole table from r and checks it: header, sizes, the layout of the zstd
// frames and every checksum.
func Decode(r io.Reader) (*Table, error) {
	h, payload, err := readChecked(r)
	if err != nil {
		return nil, err
	}
	decoded, err := decompress(h, payload)
	if err != nil {
		return nil, err
	}
	if sum := sum256(decoded); sum != h.DecodedSHA {
		name := "decoded-sha256"
		if h.Version < 2 {
			name = "entries-sha256"
		}
		return nil, fmt.Errorf("%w: %s is %x, the decoded payload hashes to %x", ErrChecksum, name, h.DecodedSHA, sum)
	}
	t := &Table{Header: *h}
	if err := t.split(decoded); err != nil {
		return nil, err
	}
	return t, nil
}

// readChecked reads a table file's header and its payload, whose checksum it checks.
func readChecked(r io.Reader) (*Header, []byte, error) {
	br := bufio.NewReader(r)
	h, err := DecodeHeader(br)
	if err != nil {
		return nil, nil, err
	}
	payload, err := readPayload(br, h.PayloadBytes)
	if err != nil {
		return nil, nil, err
	}
	if h.Version >= 2 {
		if sum := sum256(payload); sum != h.PayloadSHA {
			return nil, nil, fmt.Errorf("%w: payload-sha256 is %x, the payload hashes to %x", ErrChecksum, h.PayloadSHA, sum)
		}
	}
	return h, payload, nil
}

// readPayload reads exactly n bytes and checks that nothing follows. Memory grows with
// the bytes actually read, never to n before they are there.
func readPayload(r io.Reader, n int64) ([]byte, error) {
	const step = 1 << 20
	buf := make([]byte, 0, min(n, step))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, int64(2*cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			return nil, fmt.Errorf("%w: payload has %d of %d bytes", ErrTruncated, len(buf), n)
		}
	}
	if m, _ := r.Read(make([]byte, 1)); m > 0 {
		return nil, fmt.Errorf("%w: data after the %d-byte payload", ErrPayload, n)
	}
	return buf, nil
}

// decompress checks that the payload is exactly the frames the header implies, each a
// single-segment zstd frame of the right content size with nothing between them, and
// decodes them, in parallel, into one buffer of the decoded size.
func decompress(h *Header, payload []byte) ([]byte, error) {
	total := h.DecodedBytes()
	spans, frameSize, err := frameSpans(h, payload)
	if err != nil {
		return nil, err
	}
	// The frames are what the header claims and all present: allocate the decoded size
	// (in huge pages where the system has them: searches read tables at random).
	out := sysmem.Table(int(total))
	err = parallel(context.Background(), len(spans), runtime.GOMAXPROCS(0), newDecoder(frameSize), func(dec *zstd.Decoder) { dec.Close() }, func(dec *zstd.Decoder, i int) error {
		lo := int64(i) * frameSize
		hi := min(lo+frameSize, total)
		got, err := dec.DecodeAll(payload[spans[i].start:spans[i].end], out[lo:lo:hi])
		if err != nil {
			return fmt.Errorf("%w: frame %d: zstd: %v", ErrPayload, i+1, err)
		}
		if int64(len(got)) != hi-lo || (len(got) > 0 && &got[0] != &out[lo]) {
			return fmt.Errorf("%w: frame %d decodes to %d bytes, want %d", ErrPayload, i+1, len(got), hi-lo)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// frameSpan is where a frame lies in the payload.
type frameSpan struct{ start, end int }

// frameSpans checks that the payload is exactly the frames the header implies, each a
// single-segment zstd frame of the right content size with nothing between them, and
// returns where they are and the decoded size of each but the last.
func frameSpans(h *Header, payload []byte) ([]frameSpan, int64, error) {
	total := h.DecodedBytes()
	nframes := h.frames()
	frameSize := h.FrameBytes
	if h.Version < 2 {
		frameSize = total
	}
	spans := make([]frameSpan, 0, nframes)
	off := 0
	for i := int64(0); i < nframes; i++ {
		want := min(frameSize, total-i*frameSize)
		end, err := walkFrame(payload, off, uint64(want))
		if err != nil {
			return nil, 0, fmt.Errorf("%w: frame %d of %d at payload byte %d: %v", ErrPayload, i+1, nframes, off, err)
		}
		spans = append(spans, frameSpan{off, end})
		off = end
	}
	if off != len(payload) {
		return nil, 0, fmt.Errorf("%w: %d bytes after the last zstd frame", ErrPayload, len(payload)-off)
	}
	return spans, frameSize, nil
}

// walkFrame checks the zstd frame at payload[off:] (RFC 8878, section 3.1.1): a plain
// frame, single-segment, without a dictionary, whose content size is want; it walks the
// frame's blocks and returns the offset just past the frame.
func walkFrame(payload []byte, off int, want uint64) (int, error) {
	var fh zstd.Header
	if err := fh.Decode(payload[off:]); err != nil {
		return 0, fmt.Errorf("not a zstd frame: %v", err)
	}
	switch {
	case fh.Skippable:
		return 0, fmt.Errorf("a skippable frame")
	case !fh.SingleSegment || !fh.HasFCS:
		return 0, fmt.Errorf("not a single-segment frame")
	case fh.DictionaryID != 0:
		return 0, fmt.Errorf("a frame that needs a dictionary")
	case fh.FrameContentSize != want:
		return 0, fmt.Errorf("content size %d, want %d", fh.FrameContentSize, want)
	}
	p := off + fh.HeaderSize
	for {
		if p+3 > len(payload) {
			return 0, fmt.Errorf("the payload ends inside the frame")
		}
		b := uint32(payload[p]) | uint32(payload[p+1])<<8 | uint32(payload[p+2])<<16 // little-endian
		last, kind, size := b&1 == 1, (b>>1)&3, int(b>>3)
		p += 3
		switch kind {
		case 0, 2: // raw, compressed
			p += size
		case 1: // RLE: one byte repeated size times
			p++
		default:
			return 0, fmt.Errorf("a reserved block type")
		}
		if p > len(payload) {
			return 0, fmt.Errorf("the payload ends inside the frame")
		}
		if last {
			break
		}
	}
	if fh.HasCheckSum {
		p += 4
		if p > len(payload) {
			return 0, fmt.Errorf("the payload ends inside the frame's checksum")
		}
	}
	return p, nil
}
