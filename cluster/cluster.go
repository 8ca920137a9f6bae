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
// Faults: a unit is acknowledged (by the coordinator) only after its result is stored,
// so a unit of a worker that dies is handed to another after the ack wait; results are
// kept by unit, first one wins, so nothing is counted twice; a unit is reported failed,
// with each worker's reason, only once MaxDeliver distinct workers could not do it, or
// every worker present could not and no new one came within the ack wait (one worker's
// failures never fail a unit another can do, and a worker that does none of a job's units
// is told to stop taking them); a unit whose deliveries all go silent fails after
// MaxDeliver deliveries; once every worker has left (a GPU's fault, said on the presence
// subject) or gone silent, and none new came within the ack wait, the units left fail;
// a coordinator restarted on the same store reads the
// results stored so far and hands out only what is missing. Every unit carries the
// fingerprint of the coordinator's tables (solve.Solver.Fingerprint), and a worker whose
// tables differ refuses it.
//
// Trust: each worker has a name and, on the embedded server, a key (WorkerKey); the
// server lets it read only its own inbox and publish only under its name, and never
// acknowledge a unit. Each unit carries a key of its own that only the workers it is
// handed to see; the coordinator takes a result or progress only with it, and then
// acknowledges the delivery itself. What a worker answers is replayed where it can be,
// and audited where it cannot (Coordinator.Audit, Coordinator.TrustProof), or handed to
// several distinct workers whose results must agree (Coordinator.Quorum), as BOINC does.
package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tilekit/tilekit/internal/format"
	"github.com/tilekit/tilekit/passes"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// Names on the NATS server.
const (
	unitsStream     = "TILEKIT_UNITS"     // the work queue
	resultsPrefix   = "TILEKIT_RESULTS_"  // + job id: a job's results, kept for restarts
	legacyResults   = "TILEKIT_RESULTS"   // the results of every job, before they had keys
	unitsSubject    = "tilekit.units."    // + job id
	resultSubject   = "tilekit.results."  // + job id + "." + the worker's name
	progressSubject = "tilekit.progress." // + job id + "." + the worker's name: Progress
	cancelSubject   = "tilekit.cancel."   // + job id: stop the units of a finished pass
	presenceSubject = "tilekit.present."  // + the worker's name: it is there, taking units
	stopSubject     = "tilekit.stop."     // + job id + "." + the worker's name: take no more of the job's units
	workersName     = "workers"           // the one durable consumer all workers share
	maxDeliveries   = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + unitsStream + "." + workersName

	// coordinatorName is the name under which the coordinator stores the failures it
	// declares; no worker may take it (ValidName).
	coordinatorName = "_coordinator"

	maxMessage = 1 << 20
	// maxResult is the largest result a job's stream stores: an honest one is about a
	// kilobyte (a whole instance's record with its moves).
	maxResult = 16 << 10
)

// Queue configures the work queue, once, by whoever starts first.
type Queue struct {
	// AckWait is how long a unit may go without a word from its worker before it is
	// handed to another (workers say "in progress" three times per AckWait, with their
	// nodes so far; words whose nodes have not grown for ten AckWaits keep it no longer:
	// stallCap).
	AckWait time.Duration
	// MaxDeliver is how many distinct workers must fail a unit (hand it back, fail to
	// search it, hold it past the caps) before it is reported failed, and how many
	// deliveries that go silent fail it.
	MaxDeliver int
	// Keep is how long results are kept for a restart (0: a week).
	Keep time.Duration
	// MaxHold is the longest a worker may hold a unit by saying it is in progress, where
	// the job sets no --timeout (0: a day): no word of the worker's extends a hand-out
	// past it (with a --timeout, that and twice AckWait), and the unit then goes to
	// another worker (holdCap).
	MaxHold time.Duration
}

// DefaultQueue is the queue of solve15 cluster.
var DefaultQueue = Queue{AckWait: 30 * time.Second, MaxDeliver: 5, Keep: 7 * 24 * time.Hour, MaxHold: 24 * time.Hour}

// setup creates the units' stream and the workers' consumer, or updates them to q. The
// stream of every job's results that an older version kept is deleted: its results have
// no keys, and its subjects overlap the streams of each job's results.
func setup(ctx context.Context, js jetstream.JetStream, q Queue) (jetstream.Stream, error) {
	units, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: unitsStream, Subjects: []string{unitsSubject + ">"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("cluster: the units' stream: %w", err)
	}
	if err := js.DeleteStream(ctx, legacyResults); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("cluster: deleting the results of an older version: %w", err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, unitsStream, jetstream.ConsumerConfig{Durable: workersName,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, MaxAckPending: -1}); err != nil {
		return nil, fmt.Errorf("cluster: the workers' consumer: %w", err)
	}
	return units, nil
}

// resultsConfig is the configuration of the stream of job's results, kept for keep, at
// most maxBytes of them. Every worker publishes to a subject of its own name (the
// server's permissions see to it), and a full stream refuses what comes next rather than
// dropping what it holds.
func resultsConfig(job string, keep time.Duration, maxBytes int64) jetstream.StreamConfig {
	return jetstream.StreamConfig{Name: resultsPrefix + job, Subjects: []string{resultSubject + job + ".*"},
		Storage: jetstream.FileStorage, MaxAge: keep, Duplicates: 2 * time.Minute,
		MaxMsgSize: maxResult, MaxBytes: maxBytes, Discard: jetstream.DiscardNew}
}

// jobsBucket keeps, for each run's input and options (its key), the random nonce of its
// job id, as long as its results are kept.
const jobsBucket = "TILEKIT_JOBS"

// jobID returns the id of the job whose content hashes to key, and the job's secret:
// the key and a random nonce, hashed. The nonce is made by the first run of the job on a
// store and kept there, so that a run restarted on the store finds the results of the one
// before, while nobody can know a new run's id, and plant results for it, before it
// starts. The secret makes the units' keys (unitKey); it never leaves the coordinator.
func jobID(ctx context.Context, js jetstream.JetStream, q Queue, key string) (id string, secret []byte, err error) {
	if q.Keep <= 0 {
		q.Keep = DefaultQueue.Keep
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: jobsBucket, TTL: q.Keep, Storage: jetstream.FileStorage})
	if err != nil {
		return "", nil, fmt.Errorf("cluster: the jobs' bucket: %w", err)
	}
	for {
		if e, err := kv.Get(ctx, key); err == nil {
			id, secret := idOf(key, e.Value())
			return id, secret, nil
		} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
			return "", nil, fmt.Errorf("cluster: the job's nonce: %w", err)
		}
		nonce := make([]byte, 16)
		rand.Read(nonce)
		if _, err := kv.Create(ctx, key, nonce); err == nil {
			id, secret := idOf(key, nonce)
			return id, secret, nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) {
			return "", nil, fmt.Errorf("cluster: the job's nonce: %w", err)
		}
		// Another coordinator of the same job made it first: take its nonce.
	}
}

// idOf is the id and the secret of the job of key with nonce.
func idOf(key string, nonce []byte) (string, []byte) {
	h := sha256.Sum256(append([]byte(key+"|"), nonce...))
	s := sha256.Sum256(append([]byte("secret|"+key+"|"), nonce...))
	return hex.EncodeToString(h[:10]), s[:]
}

// unitKey is the key of the unit id of the job with secret: it travels with the unit
// to the worker that takes it, and back with its result and progress, so that the
// coordinator takes word of a unit only from a worker it was handed to. (No worker reads
// another's deliveries: each has an inbox of its own.)
func unitKey(secret []byte, id string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("unit|" + id))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// msgID is the message id of a result: the server drops a repeat of its publish, never a
// result of another delivery, and nobody without the unit's key can make it.
func msgID(unit, key string, seq, delivery uint64) string {
	m := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(m, "%s/%d/%d", unit, seq, delivery)
	return unit + "/" + hex.EncodeToString(m.Sum(nil)[:12])
}

// WorkerKey is the password of the worker name on a server of the token: a worker given
// its key may connect under its name only, and cannot make another's ('solve15 cluster
// key' prints it). A worker given the token makes its own.
func WorkerKey(token, name string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("tilekit worker " + name))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// maxName is the longest worker name.
const maxName = 64

// ValidName checks a worker's name: it is the worker's user on the NATS server and a
// token of the subjects it may publish to, so 1 to 64 letters, digits, '-' and '_',
// starting with a letter or digit.
func ValidName(name string) error {
	if name == "" || len(name) > maxName {
		return fmt.Errorf("cluster: a worker's name has 1 to %d characters, not %d", maxName, len(name))
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i], i == 0) {
			return fmt.Errorf("cluster: worker name %q: only letters, digits, '-' and '_' (and not first)", name)
		}
	}
	return nil
}

// nameByte reports whether c may stand in a worker's name (first: as its first byte).
func nameByte(c byte, first bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || !first && (c == '-' || c == '_')
}

// DefaultName is a worker's name when none is given: host-pid, with every character a
// name may not have replaced by '-'.
func DefaultName() string {
	host, _ := os.Hostname()
	b := []byte(fmt.Sprintf("%s-%d", host, os.Getpid()))
	for i, c := range b {
		if !nameByte(c, i == 0) {
			b[i] = 'w'
			if i > 0 {
				b[i] = '-'
			}
		}
	}
	if len(b) > maxName {
		b = b[len(b)-maxName:]
		b[0] = 'w'
	}
	return string(b)
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
	Key   string `json:"key"`             // unitKey: the worker's answers carry it back
	// Copy numbers the copies of a unit handed to distinct workers (Coordinator.Quorum),
	// from 1; 0 for a unit handed out once. A copy's ID is its unit's, then ~ and Copy.
	Copy int `json:"copy,omitempty"`
}

// copyID is the ID of copy k of unit id.
func copyID(id string, k int) string { return fmt.Sprintf("%s~%d", id, k) }

// unitOf is the ID of the unit a copy's ID (copyID) is of, and the copy's number; an ID
// of no copy is its own unit's, copy 0.
func unitOf(id string) (string, int) {
	i := strings.LastIndexByte(id, '~')
	if i < 0 {
		return id, 0
	}
	k, err := strconv.Atoi(id[i+1:])
	if err != nil || k < 1 {
		return id, 0
	}
	return id[:i], k
}

// Outcome is a worker's answer to a unit.
type Outcome struct {
	Job    string         `json:"job"`
	Unit   string         `json:"unit"`
	Index  int            `json:"index"`
	Seq    int            `json:"seq,omitempty"`
	Worker string         `json:"worker"`           // the coordinator sets it from the subject the outcome came on
	Record *report.Record `json:"record,omitempty"` // a whole instance
	Moves  string         `json:"moves,omitempty"`  // a subtree's solution, from the start
	Found  bool           `json:"found,omitempty"`
	Work   passes.Work    `json:"work"`
	// Value is the subtree root's value as its search left it (BPMX may raise it): the
	// serial search uses it above the subtree.
	Value   int     `json:"value,omitempty"`
	Seconds float64 `json:"seconds"`
	// What the coordinator knows of a unit given to several workers (Coordinator.Quorum),
	// never sent: the workers whose copies agreed, or, where they did not, that this is
	// its own search's (Here), the dispute, and the workers it found wrong.
	Agreed  []string `json:"-"`
	Here    bool     `json:"-"`
	Dispute string   `json:"-"`
	Wrong   []string `json:"-"`
	// Failed marks a unit given up for good (Error says why, naming the workers that
	// could not do it): Queue.MaxDeliver.
	Failed bool   `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
	// Key is the unit's key, and Ack the reply subject of the delivery that carried it,
	// which the coordinator acknowledges once it has the result.
	Key string `json:"key"`
	Ack string `json:"ack,omitempty"`
}

// Progress is a worker's word about a unit it holds, on the progress subject: still
// searching (the coordinator tells the queue so), or handed back (Back: the worker
// stops). Workers have no right to acknowledge units themselves: a token holder could
// then acknowledge anyone's.
type Progress struct {
	Unit string `json:"unit"`
	Key  string `json:"key"`
	Ack  string `json:"ack"`
	Back bool   `json:"back,omitempty"`
	// Twice marks a copy handed back because the worker has taken another copy of its
	// unit (Unit.Copy): not the worker's failure.
	Twice bool `json:"twice,omitempty"`
	// Nodes is how many nodes the worker has generated on the unit so far: its word keeps
	// the unit only while that grows (stallCap).
	Nodes uint64 `json:"nodes,omitempty"`
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

// ErrFailed is matched by the error of a unit given up for good (Queue.MaxDeliver).
var ErrFailed = errors.New("cluster: unit failed")
