// Package instances holds the published benchmark positions the toolkit measures itself
// on, as text files that solve15 reads directly (solve15 -f instances/korf100.txt):
//
//   - korf100.txt: Korf's 100 random 15-puzzle instances (Korf 1985), blank-first goal,
//     each with its optimal length (they add up to 5305);
//   - hard80.txt: three of the 17 positions of the 15-puzzle that need 80 moves, the most
//     any position needs (Brüngger, Marzetta, Fukuda & Nievergelt 1999; Korf & Schultze
//     2005), blank-last goal;
//   - korf24.txt: three of Korf & Felner's 50 random 24-puzzle instances (Korf & Felner
//     2002), blank-first goal, with their optimal lengths and the nodes their IDA* with the
//     6-6-6-6 databases and the reflection generated.
//
// The same files are embedded, for tests and benchmarks.
package instances

import "embed"

//go:embed *.txt
var files embed.FS

// The files, by name.
const (
	Korf100 = "korf100.txt"
	Hard80  = "hard80.txt"
	Korf24  = "korf24.txt"
)

// Text returns the text of one of the files.
func Text(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("instances: no file " + name)
	}
	return string(b)
}
