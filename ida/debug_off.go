//go:build !idadebug

package ida

// debugCheck is off: see debug_on.go.
const debugCheck = false
