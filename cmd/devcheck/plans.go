package main

// The plans of the device check, by name: the one run on a card (card), its small copy
// for the fake driver that CI runs (fake), and the campaign of 24-puzzle instances run
// over several short checks (campaign). TestPlans checks every one. A step's What says
// the figure it aims at; the summary holds what was measured beside it.
var plans = map[string]func() *Plan{
	"card": func() *Plan {
		small := []string{"--heuristic", "small-t", "--pruning-depth", "18"}
		md := []string{"--heuristic", "md", "--pruning", "parent"}
		return &Plan{
			About:   "The device check's one run on a card (an H100 or H200, 16 cores): every headline figure of the GPU, most important first, within 8 minutes. Carried beside the repository (gpu/prepare.sh): solve15 and devcheck gzipped, 6-6-6-6 (3.7 MB), the 5x5 automata of depth 14 (1.1 MB) and 18 (28 MB). small-t in bits (50 MB) does not fit beside them: it is built here on every core, beside the self-test, whose timings a build cannot distort. The steps that set the GPU against the cores send every pass after one of a million nodes to the card (from=1000000), to measure it; md and the twelve choose by the times, as a user's search does.",
			Seconds: 480,
			Tables: []Table{
				{Set: "6-6-6-6"}, {Automaton: "5x5", Depth: 14}, {Automaton: "5x5", Depth: 18},
				{Set: "small-t", Bits: true, Build: 140},
			},
			Steps: []Step{
				{Name: "device", Kind: KindSelfTest, Beside: true, Seconds: 40,
					What: "the card, the kernel's JIT, each search's kernel as the driver compiled it (registers, local memory), the self-test's fixed positions against one core, a faulting kernel in a process of its own"},
				{Name: "md", Kind: KindReference, Seconds: 40, Complete: true, Runs: []string{"cold", "warm"},
					What:  "Korf's 100 with md and the move back on the GPU, end to end, the driver's JIT cache cold then warm, against the committed CPU run: every length and serial count the reference's; warm, at most 10 s",
					Board: "4x4", Goal: "blank-first", Args: md, Instances: "instances/korf100.txt", Reference: "gpu/plans/korf100-md.jsonl"},
				{Name: "small-t", Kind: KindCores, Tune: "from=1000000", GPUSeconds: 15, CoresSeconds: 10,
					IDs: []string{"k24-38", "k24-40", "k24-01"}, OneCore: []string{"k24-40", "k24-01"}, OneCoreSeconds: 6,
					What:  "k24-38, k24-40 and k24-01 with small-t in bits and the depth-18 automaton: the GPU, every core and one core of this machine, the CPU's moves and serial counts; the GPU's serial expanded nodes a second at least 50 times one core's (aim: 250)",
					Board: "5x5", Goal: "blank-first", Args: small, Instances: "instances/korf24-twelve.txt"},
				{Name: "6-6-6-6", Kind: KindCores, Tune: "from=1000000", GPUSeconds: 35, CoresSeconds: 15, IDs: []string{"k24-01"},
					What:  "k24-01 with 6-6-6-6 and the depth-14 automaton: the GPU and every core, the CPU's answer and counts; the GPU's seconds over every core's (aim: 0.2)",
					Board: "5x5", Goal: "blank-first", Args: []string{"--heuristic", "6-6-6-6", "--pruning-depth", "14"}, Instances: "instances/korf24-twelve.txt"},
				{Name: "twelve", Kind: KindReference, Seconds: 35, Runs: []string{"gpu"},
					What:  "the twelve with small-t in bits and the depth-18 automaton on the GPU, stopped at its limit with what it finished, against the committed CPU records: every one in at most 20 s",
					Board: "5x5", Goal: "blank-first", Args: small, Instances: "instances/korf24-twelve.txt", Reference: "docs/repro/pruning/twelve-d18.jsonl"},
				{Name: "flat", Kind: KindReference, Seconds: 20, Runs: []string{"gpu"}, Tune: "roots=1", Against: "md warm",
					What:  "Korf's 100 as md's warm run, with the host's frontiers alone (roots=1: none grown on the card), within a budget, against the committed CPU run: its answers' seconds beside the warm run's of the same instances say what the growth on the card is worth",
					Board: "4x4", Goal: "blank-first", Args: md, Instances: "instances/korf100.txt", Reference: "gpu/plans/korf100-md.jsonl"},
			},
		}
	},
	"fake": func() *Plan {
		md := []string{"--heuristic", "md", "--pruning", "parent"}
		return &Plan{
			About:   "The device check's plan for the fake driver (internal/fakegpu/testdata/fakecuda.cpp, which runs the kernel on the host), as CI runs it: every step of the card's plan with instances and tables small enough for the emulation and two cores. 6-6-3z in bits stands for small-t (a zero-aware set in bits: the catalogue kernel), 5-5-5 for 6-6-6-6 (a set in nibbles: the sets' kernel), a few of Korf's 100 for the twelve. Its GPU steps send every pass after one of a million nodes to the card (from=1000000): by the times alone the emulation would have none.",
			Seconds: 400,
			Tables:  []Table{{Set: "6-6-3z", Bits: true}, {Set: "5-5-5", Build: 60}},
			Steps: []Step{
				{Name: "device", Kind: KindSelfTest, Beside: true, Seconds: 60,
					What: "the self-test's fixed positions against one core, a faulting kernel in a process of its own"},
				{Name: "md", Kind: KindReference, Seconds: 30, Complete: true, Runs: []string{"cold", "warm"}, Tune: "from=1000000,roots=65536",
					What:  "four of Korf's 100 with md and the move back, cold then warm, against the committed CPU run, grown on the card to 65,536 roots (the fake card's 512 threads would take the host's frontier as it is)",
					Board: "4x4", Goal: "blank-first", Args: md, Instances: "instances/korf100.txt", IDs: []string{"line 96", "line 12", "line 8", "line 99"}, Reference: "gpu/plans/korf100-md.jsonl"},
				{Name: "small-t", Kind: KindCores, Tune: "from=1000000", GPUSeconds: 20, CoresSeconds: 15, IDs: []string{"line 91"}, OneCore: []string{"line 91"}, OneCoreSeconds: 1,
					What:  "one of Korf's 100 with 6-6-3z in bits: the GPU, every core and one core",
					Board: "4x4", Goal: "blank-first", Args: []string{"--heuristic", "6-6-3z"}, Instances: "instances/korf100.txt"},
				{Name: "6-6-6-6", Kind: KindCores, Tune: "nodonate=1,from=1000000", GPUSeconds: 20, CoresSeconds: 15, IDs: []string{"line 56", "line 29"},
					What:  "two of Korf's 100 with 5-5-5: the GPU, with threads that do not donate (the knobs reach the step's GPU searches), and every core",
					Board: "4x4", Goal: "blank-first", Args: []string{"--heuristic", "5-5-5"}, Instances: "instances/korf100.txt"},
				{Name: "twelve", Kind: KindReference, Seconds: 40, Runs: []string{"gpu"}, Tune: "from=1000000",
					What:  "three of Korf's 100 with md on the GPU within a budget, against the committed CPU run",
					Board: "4x4", Goal: "blank-first", Args: md, Instances: "instances/korf100.txt", IDs: []string{"line 5", "line 26", "line 23"}, Reference: "gpu/plans/korf100-md.jsonl"},
				{Name: "flat", Kind: KindReference, Seconds: 30, Runs: []string{"gpu"}, Tune: "from=1000000,roots=1", Against: "md warm",
					What:  "md's four of Korf's 100 with the host's frontiers alone (roots=1), within a budget, against the committed CPU run",
					Board: "4x4", Goal: "blank-first", Args: md, Instances: "instances/korf100.txt", IDs: []string{"line 96", "line 12", "line 8", "line 99"}, Reference: "gpu/plans/korf100-md.jsonl"},
			},
		}
	},
	"campaign": func() *Plan {
		return &Plan{
			About:   "The campaign on a card: Korf & Felner's instances of instances/korf24-campaign.txt with small-t in bits and the depth-18 automaton on the GPU, a budget a run of the check, for several short runs. What a run makes on the GPU is kept (under $OUT/kept as gpu-records.jsonl, each record the CPU's campaign record's answer and serial counts where it has one, else the published optimum), to be committed as docs/repro/campaign/gpu-records.jsonl, which the next run passes over (solve15 --done). Carried: solve15 and the depth-18 automaton; small-t in bits is built on the card beside the self-test. PLAN=campaign gpu/prepare.sh, then PLAN=campaign gpu/check.sh.",
			Seconds: 480,
			Tables:  []Table{{Automaton: "5x5", Depth: 18}, {Set: "small-t", Bits: true, Build: 140}},
			Steps: []Step{
				{Name: "device", Kind: KindSelfTest, Beside: true, Seconds: 40,
					What: "the card, the kernel's JIT, each search's kernel as the driver compiled it (registers, local memory), the self-test's fixed positions against one core, a faulting kernel in a process of its own"},
				{Name: "campaign", Kind: KindReference, Seconds: 280, Runs: []string{"gpu"},
					What:  "the campaign's instances not yet kept, on the GPU, until the budget: each answer against the CPU's campaign record or the published optimum, kept; every instance kept in at most 300 s of records in all",
					Board: "5x5", Goal: "blank-first", Args: []string{"--heuristic", "small-t", "--pruning-depth", "18"},
					Instances: "instances/korf24-campaign.txt", Reference: "docs/repro/campaign/records.jsonl", Keep: "docs/repro/campaign/gpu-records.jsonl"},
			},
		}
	},
}
