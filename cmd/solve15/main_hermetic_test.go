package main

import (
	"testing"

	"github.com/tilekit/tilekit/internal/hermetic"
)

// TestMain hides the tables installed on this machine, so that the defaults are the same
// everywhere.
func TestMain(m *testing.M) { hermetic.Main(m) }
