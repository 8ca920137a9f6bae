package cluster

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tilekit/tilekit/instance"
	"github.com/tilekit/tilekit/internal/corpus"
	"github.com/tilekit/tilekit/report"
	"github.com/tilekit/tilekit/solve"
)

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProofAudit measures what auditing the pass that proves each answer costs:
// Korf's 100 with 6-6-3, every pass past 20,000 nodes split (so that most instances'
// proving passes are), two local workers, no random audit; the coordinator's process CPU
// time with the proving passes trusted and audited, and their ratio.
//
//	go test -run '^$' -bench ProofAudit -benchtime 1x ./cluster
func BenchmarkProofAudit(b *testing.B) {
	korf := corpus.Korf100()
	goal := korf[0].Goal
	s, err := solve.New(context.Background(), goal, solve.Options{Heuristic: "6-6-3"})
	require.NoError(b, err)
	var in []instance.Entry
	for i, k := range korf {
		in = append(in, instance.Entry{In: &instance.Instance{Line: i + 1, State: k.Start, Optimal: k.Optimal}, Line: i + 1})
	}
	run := func(trust bool) (time.Duration, map[string]int) {
		_, nc := testServer(b, "")
		for i := range 2 {
			startWorker(b, nc, &Worker{Name: fmt.Sprint("w", i), Threads: 1, Local: true})
		}
		c := &Coordinator{Solver: s, Split: true, Rule: solve.SplitOptions{SplitFrom: 20_000, UnitNodes: 20_000, Subtrees: 256}, TrustProof: trust}
		trusts := map[string]int{}
		begin := cpuTime()
		_, err := c.Run(context.Background(), nc, in, func(e instance.Entry, rec report.Record, err error) {
			require.NoError(b, err)
			require.Equal(b, e.In.Optimal, rec.Length)
			trusts[rec.Trust]++
		})
		require.NoError(b, err)
		return cpuTime() - begin, trusts
	}
	for b.Loop() {
		trusted, t1 := run(true)
		audited, t2 := run(false)
		b.Logf("trusted %.2f s CPU %v; audited %.2f s CPU %v", trusted.Seconds(), t1, audited.Seconds(), t2)
		b.ReportMetric(audited.Seconds()/trusted.Seconds(), "cpu-ratio")
	}
}
