//go:build !linux

package sysmem

func adviseHuge(b []byte) {}
