//go:build !linux

package sysmem

const adviseHugeWorks = false

func adviseHuge(b []byte) {}
