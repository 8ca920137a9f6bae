// Package instances holds the published benchmark positions the toolkit measures itself
// on, as text files that solve15 reads directly (solve15 -f instances/korf100.txt):
//
//   - korf100.txt: Korf's 100 random 15-puzzle instances (Korf 1985), blank-first goal,
//     each with its optimal length (they add up to 5305);
//   - hard80.txt: three of the 17 positions of the 15-puzzle that need 80 moves, the most
//     any position needs (Brüngger, Marzetta, Fukuda & Nievergelt 1999; Korf & Schultze
//     2005), blank-last goal;
//   - hard80-table4-blank-first.txt and hard80-table4-blank-last.txt: the 28 positions of
//     Table 4 of Hasan et al. (2023) (BA* and UA* with HH), all needing 80 moves, 11 for
//     the blank-first goal and 17 for blank-last, each with the paper's figures in its
//     comment;
//   - korf24.txt: three of Korf & Felner's 50 random 24-puzzle instances (Korf & Felner
//     2002), blank-first goal, with their optimal lengths and the nodes their IDA* with the
//     6-6-6-6 databases and the reflection generated;
//   - korf24-twelve.txt: twelve of those 50, the benchmark of the 24-puzzle's catalogues
//     (docs/RESULTS.md), with their optimal lengths and published node counts;
//   - korf24-campaign.txt: the 26 of those 50 (the twelve among them) that Clausecker &
//     Reinefeld's small-t catalogue solves with fewer than 1e10 expanded nodes, the
//     one-machine campaign of docs/RESULTS.md, likewise;
//   - korf24-44.txt: 44 of those 50 (six are kept aside for acceptance checks), with their
//     optimal lengths, Manhattan distances and the published node counts: Korf & Felner's
//     (2002), Doebbelin, Schuett & Reinefeld's (2013) and small-t's (Clausecker &
//     Reinefeld 2019). A campaign over them goes in sittings with solve15 --done.
//
// The same files are embedded, for tests and benchmarks.
package instances

import "embed"

//go:embed *.txt
var files embed.FS

// The files, by name.
const (
	Korf100      = "korf100.txt"
	Hard80       = "hard80.txt"
	Korf24       = "korf24.txt"
	Korf24Twelve = "korf24-twelve.txt"
	// Korf24Campaign holds the 26 of Korf & Felner's 50 that small-t solves with fewer than
	// 1e10 expanded nodes, with the published figures.
	Korf24Campaign = "korf24-campaign.txt"
	// Korf24All holds 44 of Korf & Felner's 50, with the published figures.
	Korf24All = "korf24-44.txt"
	// Table4First and Table4Last hold the positions of Hasan et al.'s Table 4.
	Table4First = "hard80-table4-blank-first.txt"
	Table4Last  = "hard80-table4-blank-last.txt"
)

// Text returns the text of one of the files.
func Text(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("instances: no file " + name)
	}
	return string(b)
}
