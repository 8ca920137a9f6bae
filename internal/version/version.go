// Package version holds the toolkit's version, which the commands print and every table
// file records as its generator.
package version

// Version is the toolkit's release. Table files record it; change it when table bytes change.
const Version = "0.2.0"

// Generator is the name table files record as the program that wrote them.
const Generator = "tilekit " + Version
