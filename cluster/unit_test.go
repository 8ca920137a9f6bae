package cluster

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeUnit(t *testing.T) {
	ok := `{"job":{"id":"j","board":"4x4","goal":"blank-first"},"id":"j.0","start":[14,13,15,7,11,12,9,5,6,0,2,1,4,8,10,3]`
	good, err := decodeUnit([]byte(ok + `,"bound":41,"path":"UL"}`))
	require.NoError(t, err)
	assert.Len(t, good.path, 2)
	for _, c := range []struct{ json, want string }{
		{`{`, "not JSON"},
		{`{"job":{"board":"9x9"}}`, "board"},
		{`{"job":{"board":"4x4","goal":"nowhere"}}`, "goal"},
		{`{"job":{"board":"4x4","goal":"blank-first"},"start":[1,2,3]}`, "start"},
		{`{"job":{"board":"4x4","goal":"blank-first"},"start":[1,0,2,3,4,5,6,7,8,9,10,11,12,13,15,14]}`, "start"},
		{ok + `,"bound":-1}`, "bound -1"},
		{ok + `,"bound":1000}`, "bound 1000"},
		{ok + `,"path":"UL"}`, "without a bound"},
		{ok + `,"bound":41,"path":"UX"}`, "path"},
		{ok + `,"bound":2,"path":"UL"}`, "at bound 2"},
	} {
		_, err := decodeUnit([]byte(c.json))
		assert.ErrorContains(t, err, c.want, c.json)
	}
}

// A unit off the queue is outside input: decoding never panics, and what it accepts is a
// valid state of its goal with a path shorter than its bound.
func FuzzDecodeUnit(f *testing.F) {
	f.Add([]byte(`{"job":{"id":"j","board":"4x4","goal":"blank-first"},"id":"j.0","start":[14,13,15,7,11,12,9,5,6,0,2,1,4,8,10,3],"bound":41,"path":"UL"}`))
	f.Add([]byte(`{"job":{"board":"3x3","goal":"1 2 3 4 5 6 7 8 0"},"start":[1,2,3,4,5,6,7,0,8]}`))
	f.Add([]byte(`{"job":{"board":"5x5","goal":"blank-first"},"start":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := decodeUnit(data)
		if err != nil {
			return
		}
		require.NoError(t, u.goal.Check(u.start))
		if u.Bound > 0 {
			require.Less(t, len(u.path), u.Bound)
		}
		_, err = json.Marshal(u.Unit)
		require.NoError(t, err)
	})
}

func TestStatusString(t *testing.T) {
	for _, tc := range []struct {
		st   Status
		want string
	}{
		{Status{Done: 3, Queued: 2, InFlight: 1, Workers: 2, Nodes: 12345, Rate: 2.5e6},
			"units: 3 done, 2 queued, 1 in flight; results from 2 workers; 12,345 nodes, 2.5 M nodes/s"},
		{Status{Done: 1, Failed: 1, Bound: 100, Workers: 1},
			"units: 1 done, 0 queued, 0 in flight, 1 failed; bound 100; results from 1 worker; 0 nodes, 0.0 M nodes/s"},
		{Status{Done: 1, Refused: 7, Workers: 1},
			"units: 1 done, 0 queued, 0 in flight, 7 messages refused; results from 1 worker; 0 nodes, 0.0 M nodes/s"},
	} {
		assert.Equal(t, tc.want, tc.st.String())
	}
}
