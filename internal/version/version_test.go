package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDescribe(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, Version+" (module v0.2.0, revision 1a2b3c4d5e6f, modified)", describe(info))
	assert.Equal(t, Version+" (no revision recorded: built without version control information)", describe(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}),
		"a build without a revision says so, rather than looking like a release")
	assert.NotEmpty(t, Build())
}
