package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tilekit/tilekit/cmd/internal/cmdline"
)

// Every command has its help text, every text is a command's, and every example in them
// is a command line the binary takes (an unknown flag, a flag after an argument or a value
// a flag refuses would be bad usage).
func TestHelpTexts(t *testing.T) {
	assert.Empty(t, cmdline.HelpProblems(newApp, help))
}
