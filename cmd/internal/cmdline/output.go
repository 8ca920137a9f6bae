package cmdline

import (
	"io"
	"sync"

	"github.com/urfave/cli/v2"
)

// output is a command's standard output as Main hands it to the command: it keeps the
// first write error and takes no write after it, so that a full disk or a closed pipe is
// an exit status and a message (Main), never a run that says it succeeded with part of
// its output lost. It counts the bytes written whole.
type output struct {
	mu      sync.Mutex
	w       io.Writer
	onFail  func() // called once, at the first error
	err     error
	written int64
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.written += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if o.err = err; err != nil && o.onFail != nil {
		o.onFail()
	}
	return n, err
}

// failed returns the first write error.
func (o *output) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// WriteError returns the first error writing c's standard output, or nil (also for an
// output that Main did not make).
func WriteError(c *cli.Context) error {
	if o, ok := c.App.Writer.(*output); ok {
		return o.failed()
	}
	return nil
}
