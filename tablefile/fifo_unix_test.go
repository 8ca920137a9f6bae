//go:build unix

package tablefile

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A named pipe with no writer is refused at once, not waited on.
func TestReadNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "t.tbl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(fifo); done <- err }()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "is a named pipe")
	case <-time.After(5 * time.Second):
		t.Fatal("reading a named pipe blocked")
	}
}
