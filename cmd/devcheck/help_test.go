package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
)

// Every command has its help text, and every example in them is a command line the
// binary takes.
func TestHelpTexts(t *testing.T) {
	assert.Empty(t, cmdline.HelpProblems(newApp, help))
}

// The harness links no NATS: it runs solve15's searches, never a cluster. (solve15
// cannot link it: it is a command of its own.)
func TestHarnessLinksNoNATS(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	assert.Contains(t, string(out), "github.com/tilekit/tilekit/solve")
	assert.NotContains(t, string(out), "github.com/nats-io/")
}
