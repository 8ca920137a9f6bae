package cluster

import (
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// The cluster's messages, one row each: the one place that says what goes over the
// server, who may send it and who may hear it. A worker's rights on the server are made
// from this table (workerPermissions), so a message without a row is one no worker may
// publish or hear; the coordinator, on its own server, has every right. A new message is
// a row here, its subject's constant, its payload type and its handler
// (docs/ARCHITECTURE.md, "A new cluster message").

// party is who publishes or hears a message.
type party uint8

const (
	coordinator party = 1 << iota
	worker
	natsServer // the server itself: JetStream's deliveries, API and advisories
)

// A message is one kind of message of the cluster.
type message struct {
	what string // for people
	// subject is its subject as a worker's rights name it: NATS's wildcards for what
	// varies, and workerToken for the worker's own name.
	subject  string
	payload  string // the type it carries (JSON), or what JetStream defines
	from, to party
	handler  string // the function that takes it in
}

// workerToken stands for a worker's own name in a message's subject.
const workerToken = "<worker>"

var messages = []message{
	{what: "a unit of work, to the queue", subject: unitsSubject + "*", payload: "Unit",
		from: coordinator, to: natsServer, handler: "the units stream (run.publish)"},
	{what: "the next unit, asked of the workers' consumer", subject: "$JS.API.CONSUMER.MSG.NEXT." + unitsStream + "." + workersName,
		payload: "JetStream's pull request", from: worker, to: natsServer, handler: "JetStream"},
	{what: "the workers' consumer's state, asked", subject: "$JS.API.CONSUMER.INFO." + unitsStream + "." + workersName,
		payload: "JetStream's request", from: worker, to: natsServer, handler: "JetStream"},
	{what: "a worker's inbox: its units as delivered, and the server's replies", subject: inboxPrefix(workerToken) + ".>",
		payload: "Unit, JetStream's replies", from: natsServer, to: worker, handler: "Worker.handle"},
	{what: "a worker's word: still searching (its nodes so far), or handed back", subject: progressSubject + "*." + workerToken,
		payload: "Progress", from: worker, to: coordinator, handler: "run.progress"},
	{what: "a unit's result, stored in the job's results stream (the coordinator's: a unit failed for good)",
		subject: resultSubject + "*." + workerToken, payload: "Outcome", from: worker | coordinator, to: coordinator,
		handler: "run.listen, run.accept, run.record"},
	{what: "a worker's presence: it is there and takes units, said every third of the ack wait (at most 2 s)",
		subject: presenceSubject + workerToken, payload: "none", from: worker, to: coordinator, handler: "run.seenWorker"},
	{what: "a worker told to take no more of a job's units: it could not do any it took",
		subject: stopSubject + "*." + workerToken, payload: "why, as text", from: coordinator, to: worker, handler: "Worker.stop"},
	{what: "a pass decided: its units' searches stop", subject: cancelSubject + ">",
		payload: "the pass's key (passKey)", from: coordinator, to: worker, handler: "Worker.decide"},
	{what: "a word about a delivery (in progress, handed back, done), from a worker's word or result",
		subject: "$JS.ACK." + unitsStream + "." + workersName + ".>", payload: "+WPI, -NAK, +ACK",
		from: coordinator, to: natsServer, handler: "run.ack"},
	{what: "the streams and consumers set up, results read and deleted", subject: "$JS.API.>",
		payload: "JetStream's requests", from: coordinator, to: natsServer, handler: "JetStream"},
	{what: "a unit handed out --max-deliver times", subject: maxDeliveries,
		payload: "JetStream's advisory", from: natsServer, to: coordinator, handler: "run.givenUp"},
}

// workerPermissions are what the worker name may do on the embedded server (and what an
// external server's configuration should give it, docs/GUIDE.md): publish the messages a
// worker sends and hear those it is sent, under its own name, and nothing else. It may
// not publish units, acknowledge units (the coordinator does, for the deliveries a
// worker's word names), publish under another's name, read another's inbox, publish
// decisions, job control or the server's events, or make any other JetStream request
// (purging, deleting, reading streams).
func workerPermissions(name string) *server.Permissions {
	p := &server.Permissions{Publish: &server.SubjectPermission{}, Subscribe: &server.SubjectPermission{}}
	for _, m := range messages {
		subject := strings.ReplaceAll(m.subject, workerToken, name)
		if m.from&worker != 0 {
			p.Publish.Allow = append(p.Publish.Allow, subject)
		}
		if m.to&worker != 0 {
			p.Subscribe.Allow = append(p.Subscribe.Allow, subject)
		}
	}
	return p
}
