package main

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
)

// Kernel is what is known of one kernel's resources: from ptxas -v for a target, or from
// the PTX's own declarations (Arch "ptx": its local depot and virtual registers, which
// ptxas maps onto far fewer).
type Kernel struct {
	Name        string `json:"name"`
	Arch        string `json:"arch"`
	Registers   int    `json:"registers,omitempty"`         // ptxas: per thread
	Virtual     int    `json:"virtual_registers,omitempty"` // the PTX: virtual registers declared
	StackBytes  int    `json:"stack_bytes"`                 // ptxas: the stack frame; the PTX: the local depot
	SpillStores int    `json:"spill_stores,omitempty"`      // bytes (ptxas)
	SpillLoads  int    `json:"spill_loads,omitempty"`       // bytes (ptxas)
	SharedBytes int    `json:"shared_bytes,omitempty"`      // static shared memory a block (ptxas)
}

var (
	ptxEntry = regexp.MustCompile(`^\.visible \.entry (\w+)\(`)
	ptxDepot = regexp.MustCompile(`^\s*\.local \.align \d+ \.b8\s+__local_depot\d+\[(\d+)\];`)
	ptxRegs  = regexp.MustCompile(`^\s*\.reg \.\w+\s+%\w+<(\d+)>;`)
)

// PTXDeclarations reads each entry of a PTX module: its local depot (the bytes of local
// memory a thread reserves before ptxas) and the virtual registers it declares.
func PTXDeclarations(ptx []byte) []Kernel {
	var out []Kernel
	sc := bufio.NewScanner(bytes.NewReader(ptx))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := ptxEntry.FindStringSubmatch(line); m != nil {
			out = append(out, Kernel{Name: m[1], Arch: "ptx"})
			continue
		}
		if len(out) == 0 {
			continue
		}
		k := &out[len(out)-1]
		if m := ptxDepot.FindStringSubmatch(line); m != nil {
			k.StackBytes, _ = strconv.Atoi(m[1])
		} else if m := ptxRegs.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			k.Virtual += n
		}
	}
	return out
}

var (
	ptxasEntry = regexp.MustCompile(`(?:Compiling entry function|Function properties for) '?(\w+)'?(?: for '(sm_\w+)')?`)
	ptxasStack = regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	ptxasRegs  = regexp.MustCompile(`Used (\d+) registers`)
	ptxasSmem  = regexp.MustCompile(`(\d+) bytes smem`)
)

// PTXASReport reads the output of ptxas -v for arch: each entry's registers, stack frame
// and spills.
func PTXASReport(out []byte, arch string) []Kernel {
	var ks []Kernel
	at := map[string]int{}
	cur := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := ptxasEntry.FindStringSubmatch(line); m != nil {
			i, ok := at[m[1]]
			if !ok {
				i = len(ks)
				at[m[1]] = i
				ks = append(ks, Kernel{Name: m[1], Arch: arch})
			}
			cur = i
			continue
		}
		if cur < 0 {
			continue
		}
		k := &ks[cur]
		if m := ptxasStack.FindStringSubmatch(line); m != nil {
			k.StackBytes, _ = strconv.Atoi(m[1])
			k.SpillStores, _ = strconv.Atoi(m[2])
			k.SpillLoads, _ = strconv.Atoi(m[3])
		}
		if m := ptxasRegs.FindStringSubmatch(line); m != nil {
			k.Registers, _ = strconv.Atoi(m[1])
		}
		if m := ptxasSmem.FindStringSubmatch(line); m != nil {
			k.SharedBytes, _ = strconv.Atoi(m[1])
		}
	}
	return ks
}
