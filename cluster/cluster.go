// Package cluster shares the solving of instances out among processes and machines
// through NATS JetStream (nats.io): a coordinator puts units of work on a work queue, and
// workers anywhere take them one at a time, search them with their own tables and publish
// the results, which the coordinator prints in input order.
//
// A unit is a whole instance (for batches), or, for one large instance, a subtree of an
// IDA* pass below a frontier: Reinefeld & Schnecke's AIDA* ("AIDA* - Asynchronous
// Parallel IDA*", 1994) hands such subtrees out the same way. The coordinator runs the
// passes (package solve's SolveSplit), so that the solution is the one a single process
// finds.
//
// Faults: a unit is acknowledged only after its result is stored, so a unit of a worker
// that dies is handed to another after the ack wait; results are kept by unit, first one
// wins, so nothing is counted twice; a unit handed out MaxDeliver times without a result
// is reported failed with the reason; a coordinator restarted on the same store reads the
// results stored so far and hands out only what is missing. Every unit carries the
// fingerprint of the coordinator's tables (solve.Solver.Fingerprint), and a worker whose
// tables differ refuses it.
package cluster

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
	"github.com/tilekit/tilekit/tally"
)

// Names on the NATS server.
const (
	unitsStream   = "TILEKIT_UNITS"   // the work queue
	resultsStream = "TILEKIT_RESULTS" // results and dead letters, kept for restarts
	unitsSubject  = "tilekit.units."  // + job id
	resultSubject = "tilekit.results."
	deadSubject   = "tilekit.dead."   // + job id: units that failed for good
	cancelSubject = "tilekit.cancel." // + job id: stop the units of a finished pass
	workersName   = "workers"         // the one durable consumer all workers share
	maxDeliveries = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + unitsStream + "." + workersName

	maxMessage = 1 << 20
)

// Queue configures the work queue, once, by whoever starts first.
type Queue struct {
	// AckWait is how long a unit may go without a word from its worker before it is
	// handed to another (workers say "in progress" three times per AckWait).
	AckWait time.Duration
	// MaxDeliver is how many times a unit is handed out before it is reported failed.
	MaxDeliver int
	// Keep is how long results are kept for a restart (0: a week).
	Keep time.Duration
}

// DefaultQueue is the queue of solve15 cluster.
var DefaultQueue = Queue{AckWait: 30 * time.Second, MaxDeliver: 5, Keep: 7 * 24 * time.Hour}

// setup creates the streams and the workers' consumer, or updates them to q.
func setup(ctx context.Context, js jetstream.JetStream, q Queue) (jetstream.Stream, jetstream.Stream, error) {
	if q.Keep <= 0 {
		q.Keep = DefaultQueue.Keep
	}
	units, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: unitsStream, Subjects: []string{unitsSubject + ">"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the units' stream: %w", err)
	}
	results, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: resultsStream,
		Subjects: []string{resultSubject + ">", deadSubject + ">"}, Storage: jetstream.FileStorage,
		MaxAge: q.Keep, Duplicates: 2 * time.Minute})
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the results' stream: %w", err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, unitsStream, jetstream.ConsumerConfig{Durable: workersName,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, MaxAckPending: -1}); err != nil {
		return nil, nil, fmt.Errorf("cluster: the workers' consumer: %w", err)
	}
	return units, results, nil
}

// jobsBucket keeps, for each run's input and options (its key), the random nonce of its
// job id, as long as its results are kept.
const jobsBucket = "TILEKIT_JOBS"

// jobID returns the id of the job whose content hashes to key: the key and a random
// nonce, hashed. The nonce is made by the first run of the job on a store and kept there,
// so that a run restarted on the store finds the results of the one before, while nobody
// can know a new run's id, and plant results for it, before it starts.
func jobID(ctx context.Context, js jetstream.JetStream, q Queue, key string) (string, error) {
	if q.Keep <= 0 {
		q.Keep = DefaultQueue.Keep
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: jobsBucket, TTL: q.Keep, Storage: jetstream.FileStorage})
	if err != nil {
		return "", fmt.Errorf("cluster: the jobs' bucket: %w", err)
	}
	for {
		if e, err := kv.Get(ctx, key); err == nil {
			return idOf(key, e.Value()), nil
		} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
			return "", fmt.Errorf("cluster: the job's nonce: %w", err)
		}
		nonce := make([]byte, 16)
		rand.Read(nonce)
		if _, err := kv.Create(ctx, key, nonce); err == nil {
			return idOf(key, nonce), nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) {
			return "", fmt.Errorf("cluster: the job's nonce: %w", err)
		}
		// Another coordinator of the same job made it first: take its nonce.
	}
}

// idOf is the id of the job of key with nonce.
func idOf(key string, nonce []byte) string {
	h := sha256.Sum256(append([]byte(key+"|"), nonce...))
	return hex.EncodeToString(h[:10])
}

// Job is what every unit of one run shares: how to solve, and with which tables.
type Job struct {
	ID          string        `json:"id"`
	Board       string        `json:"board"`
	Goal        string        `json:"goal"`    // the goal's tiles
	Options     solve.Options `json:"options"` // Tables and Workers are the worker's own
	Timeout     time.Duration `json:"timeout,omitempty"`
	Fingerprint string        `json:"fingerprint"`     // of the coordinator's solver
	Split       bool          `json:"split,omitempty"` // units are subtrees: limits are the coordinator's
}

// Unit is one piece of work: a whole instance, or the subtree of a pass below Path.
type Unit struct {
	Job   Job    `json:"job"`
	ID    string `json:"id"`
	Index int    `json:"index"` // the instance's place in the input, from 0
	Label string `json:"label"` // how people name the instance
	Start []int  `json:"start"`
	Bound int    `json:"bound,omitempty"` // a subtree's pass; 0 for a whole instance
	Path  string `json:"path,omitempty"`  // a subtree's moves from the start
	Seq   int    `json:"seq,omitempty"`   // a subtree's place in its pass's frontier
}

// Outcome is a worker's answer to a unit.
type Outcome struct {
	Job    string         `json:"job"`
	Unit   string         `json:"unit"`
	Index  int            `json:"index"`
	Seq    int            `json:"seq,omitempty"`
	Worker string         `json:"worker"`
	Record *report.Record `json:"record,omitempty"` // a whole instance
	Moves  string         `json:"moves,omitempty"`  // a subtree's solution, from the start
	Found  bool           `json:"found,omitempty"`
	Work   tally.Work     `json:"work"`
	// Value is the subtree root's value as its search left it (BPMX may raise it): the
	// serial search uses it above the subtree.
	Value   int     `json:"value,omitempty"`
	Seconds float64 `json:"seconds"`
	// Failed marks a unit given up for good (Error says why): tried MaxDeliver times.
	Failed bool   `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Text says for people what a worker did with unit u: its result, nodes and time.
func (o *Outcome) Text(u *Unit) string {
	what := "no solution below its path"
	switch {
	case o.Failed || o.Error != "":
		what = "failed: " + o.Error
	case o.Record != nil && o.Record.Solved:
		what = format.Count(o.Record.Length, "move")
		if o.Record.Optimal {
			what += " (optimal)"
		}
	case o.Record != nil:
		what = "not solved: " + o.Record.Error
	case o.Found:
		what = "a solution"
	}
	return fmt.Sprintf("unit %s (%s): %s; %s nodes, %.2fs", u.ID, u.Label, what, format.Thousands(o.Work.Nodes), o.Seconds)
}

// passKey names a split pass, in the messages that stop its units once it is decided: its
// job, its instance (a batch split instance by instance has passes of the same bound) and
// its bound.
func passKey(job string, index, bound int) string { return fmt.Sprintf("%s/%d/%d", job, index, bound) }

// ErrFailed is matched by the error of a unit given up after MaxDeliver tries.
var ErrFailed = errors.New("cluster: unit failed")
