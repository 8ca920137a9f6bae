// Package tally holds the counts of an IDA* search as they travel: the work of a search or
// of a part of one (nodes generated and expanded) and the work of one pass with its bound.
// They are the wire form that the records (package report), the cluster and the engines
// share, so that a record or a unit of work can be read without linking an engine.
//
// A node is generated when its parent makes it (before the bound tests it) and expanded
// when its own children are generated; docs/SEARCH.md says exactly when, for every engine.
package tally

// Work counts the nodes of a search, or of a part of one.
type Work struct {
	Nodes    uint64 `json:"nodes"`    // nodes generated
	Expanded uint64 `json:"expanded"` // nodes whose children were generated
}

// Add adds o to w.
func (w *Work) Add(o Work) {
	w.Nodes += o.Nodes
	w.Expanded += o.Expanded
}

// Pass is the work of one IDA* pass (iteration) with its bound on f = g + h.
type Pass struct {
	Bound    int    `json:"bound"`
	Nodes    uint64 `json:"nodes"`    // nodes generated
	Expanded uint64 `json:"expanded"` // nodes whose children were generated
}

// Work returns the pass's counts.
func (p Pass) Work() Work { return Work{Nodes: p.Nodes, Expanded: p.Expanded} }
