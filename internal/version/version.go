// Package version holds the toolkit's version, which the commands print and every table
// file records as its generator.
package version

import (
	"runtime/debug"
	"strings"
)

// Version is the toolkit's release. Table files record it; change it when table bytes change.
const Version = "0.2.0"

// Generator is the name table files record as the program that wrote them.
const Generator = "tilekit " + Version

// Build describes the running binary for --version: the release, then, when the binary
// carries them (runtime/debug.ReadBuildInfo), its module version and the VCS revision it
// was built from ("0.2.0 (module v0.2.0, revision 1a2b3c4d5e6f, modified)"), or that it
// records none (a build with -buildvcs=false, or outside a repository).
func Build() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	return describe(info)
}

func describe(info *debug.BuildInfo) string {
	var parts []string
	if v := info.Main.Version; v != "" && v != "(devel)" {
		parts = append(parts, "module "+v)
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision != "" {
		if len(revision) > 12 {
			revision = revision[:12]
		}
		parts = append(parts, "revision "+revision)
		if modified == "true" {
			parts = append(parts, "modified")
		}
	}
	if revision == "" {
		parts = append(parts, "no revision recorded: built without version control information")
	}
	return Version + " (" + strings.Join(parts, ", ") + ")"
}
