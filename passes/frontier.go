package passes

import (
	"slices"

	"github.com/tilekit/tilekit/board"
)

// A Frontier is the subtrees of a split pass, in the serial search's order: for each, its
// root's depth, value, path from the start and the work of the walk that met it before it
// (Node), and what the engine keeps of the root to search below it (its payload: Stride
// bytes a node, the engine's encoding of its board, automaton state and lookups). Its
// arrays are flat and hold no pointers, so that a frontier of a million nodes is a few
// allocations the collector need not scan.
type Frontier struct {
	nodes   []node
	paths   []board.Dir // the nodes' paths, each node.g moves from node.path on
	payload []byte      // stride bytes a node
	stride  int
	engine  Engine
}

// node is one subtree's root in a Frontier.
type node struct {
	g, h   uint8  // its depth, and its value as the walk met it
	path   uint32 // where its path starts in the frontier's paths
	before Work   // the work of the walk that met it, from that walk's start to the node
}

// newFrontier returns an empty frontier of the engine's nodes, stride bytes each.
func newFrontier(stride int, e Engine) *Frontier { return &Frontier{stride: stride, engine: e} }

// Engine is the engine whose walks met the nodes, which walks below them (Deepen,
// Workers); nil for a frontier made otherwise.
func (f *Frontier) Engine() Engine { return f.engine }

// Len returns the number of subtrees.
func (f *Frontier) Len() int { return len(f.nodes) }

// Path returns the path of subtree i from the start.
func (f *Frontier) Path(i int) []board.Dir {
	n := &f.nodes[i]
	return f.paths[n.path : n.path+uint32(n.g) : n.path+uint32(n.g)]
}

// Payload returns subtree i's payload.
func (f *Frontier) Payload(i int) []byte {
	return f.payload[i*f.stride : (i+1)*f.stride : (i+1)*f.stride]
}

// paths2 returns a copy of every subtree's path (Path), in order, in one allocation (f's
// own are overwritten when f is reused).
func (f *Frontier) pathsCopy() [][]board.Dir {
	all := slices.Clone(f.paths)
	out := make([][]board.Dir, len(f.nodes))
	for i := range out {
		n := &f.nodes[i]
		out[i] = all[n.path : n.path+uint32(n.g) : n.path+uint32(n.g)]
	}
	return out
}

// H and G are subtree i's value and depth.
func (f *Frontier) H(i int) int { return int(f.nodes[i].h) }
func (f *Frontier) G(i int) int { return int(f.nodes[i].g) }

// before is the work of the walk that met subtree i, from its start to the subtree.
func (f *Frontier) before(i int) Work { return f.nodes[i].before }

// add appends a node, and returns the room for its path (g moves) and its payload.
func (f *Frontier) add(g, h int, before Work) ([]board.Dir, []byte) {
	f.nodes = append(f.nodes, node{g: uint8(g), h: uint8(h), path: uint32(len(f.paths)), before: before})
	n, p := len(f.paths), len(f.payload)
	f.paths = slices.Grow(f.paths, g)[:n+g]
	f.payload = slices.Grow(f.payload, f.stride)[:p+f.stride]
	slot := f.payload[p:]
	clear(slot)
	return f.paths[n:], slot
}

// reset empties f, keeping its memory.
func (f *Frontier) reset() { f.nodes, f.paths, f.payload = f.nodes[:0], f.paths[:0], f.payload[:0] }

// reserve empties f, with room for n nodes and their paths' moves.
func (f *Frontier) reserve(n, moves int) {
	f.nodes = make([]node, 0, n)
	f.paths = make([]board.Dir, 0, moves)
	f.payload = make([]byte, 0, n*f.stride)
}

// sized returns a frontier like f of exactly the room of s.
func (f *Frontier) sized(s span) *Frontier {
	return &Frontier{nodes: make([]node, s.nodes), paths: make([]board.Dir, s.paths), payload: make([]byte, s.nodes*f.stride),
		stride: f.stride, engine: f.engine}
}

// window returns an empty frontier whose nodes, paths and payloads are appended in place
// into f from o on, with room for n's (and no more: more would go elsewhere).
func (f *Frontier) window(o, n span) *Frontier {
	a, b := o.nodes*f.stride, (o.nodes+n.nodes)*f.stride
	return &Frontier{nodes: f.nodes[o.nodes : o.nodes : o.nodes+n.nodes], paths: f.paths[o.paths : o.paths : o.paths+n.paths],
		payload: f.payload[a:a:b], stride: f.stride, engine: f.engine}
}

// append adds o's nodes after f's.
func (f *Frontier) append(o *Frontier) {
	base := uint32(len(f.paths))
	for _, n := range o.nodes {
		n.path += base
		f.nodes = append(f.nodes, n)
	}
	f.paths = append(f.paths, o.paths...)
	f.payload = append(f.payload, o.payload...)
}

// size returns f's size.
func (f *Frontier) size() span { return span{len(f.nodes), len(f.paths)} }

// span is a run of a frontier's nodes and of their moves in its Paths.
type span struct{ nodes, paths int }
