// Package report gives a search's results the forms people and scripts read: the one JSON
// form of a solve (Record, what solve15 --json prints per instance, what the HTTP API and
// the page answer), its text for people, the check of a record received from elsewhere
// (Record.Check, for a cluster's workers), a batch of instances solved in the order of
// their input with its summary, the JSON form of a bad input line, and the evaluator of
// heuristics behind `solve15 eval`.
//
// Package solve decides how a position is solved and returns a solve.Result; this package
// only presents and checks results, so that the front door stays small.
package report
