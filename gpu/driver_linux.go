//go:build linux && (amd64 || arm64)

package gpu

import (
	"cmp"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// driver is the CUDA driver API, bound at run time from libcuda.so.1 (purego: no cgo). The
// 64-bit entry points carry the _v2 suffix.
type driver struct {
	lib uintptr

	cuInit                        func(flags uint32) int32
	cuDriverGetVersion            func(v *int32) int32
	cuDeviceGetCount              func(n *int32) int32
	cuDeviceGet                   func(dev *int32, ordinal int32) int32
	cuDeviceGetName               func(name *byte, n int32, dev int32) int32
	cuDeviceTotalMem              func(bytes *uint64, dev int32) int32 `sym:"cuDeviceTotalMem_v2"`
	cuDeviceGetAttribute          func(v *int32, attr int32, dev int32) int32
	cuDevicePrimaryCtxRetain      func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease     func(dev int32) int32 `sym:"cuDevicePrimaryCtxRelease_v2"`
	cuCtxSetCurrent               func(ctx uintptr) int32
	cuCtxSynchronize              func() int32
	cuModuleLoadDataEx            func(mod *uintptr, image unsafe.Pointer, n uint32, opts unsafe.Pointer, vals unsafe.Pointer) int32
	cuModuleGetFunction           func(fn *uintptr, mod uintptr, name string) int32
	cuModuleUnload                func(mod uintptr) int32
	cuMemAlloc                    func(p *uint64, bytes uint64) int32                      `sym:"cuMemAlloc_v2"`
	cuMemFree                     func(p uint64) int32                                     `sym:"cuMemFree_v2"`
	cuMemcpyHtoD                  func(dst uint64, src unsafe.Pointer, bytes uint64) int32 `sym:"cuMemcpyHtoD_v2"`
	cuMemcpyDtoH                  func(dst unsafe.Pointer, src uint64, bytes uint64) int32 `sym:"cuMemcpyDtoH_v2"`
	cuMemsetD8                    func(dst uint64, v uint8, n uint64) int32                `sym:"cuMemsetD8_v2"`
	cuMemGetInfo                  func(free, total *uint64) int32                          `sym:"cuMemGetInfo_v2"`
	cuMemHostAlloc                func(p *uintptr, bytes uint64, flags uint32) int32
	cuMemHostGetDevicePointer     func(d *uint64, p uintptr, flags uint32) int32 `sym:"cuMemHostGetDevicePointer_v2"`
	cuMemFreeHost                 func(p uintptr) int32
	cuLaunchKernel                func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params, extra uintptr) int32
	cuOccupancyMaxActiveBlocksPer func(n *int32, fn uintptr, block int32, shared uint64) int32 `sym:"cuOccupancyMaxActiveBlocksPerMultiprocessor"`
	cuFuncGetAttribute            func(v *int32, attr int32, fn uintptr) int32
	cuGetErrorName                func(err int32, s *uintptr) int32
	cuGetErrorString              func(err int32, s *uintptr) int32
}

// loadDriver opens the driver library (libcuda.so.1 where the loader finds it, or path)
// and binds every entry point the package calls.
func loadDriver(path string) (*driver, error) {
	name := path
	if name == "" {
		name = "libcuda.so.1"
	}
	// dlerror's reason is the calling thread's: the goroutine stays on one for both.
	runtime.LockOSThread()
	lib, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	runtime.UnlockOSThread()
	if err != nil {
		where := "the loader's search path (LD_LIBRARY_PATH, the ld.so cache: ldconfig -p | grep libcuda)"
		if path != "" {
			where = path
		}
		why := err.Error()
		if strings.TrimSpace(why) == "" {
			why = "the loader gave no reason"
		}
		return nil, fmt.Errorf("%w: %s not found in %s: install the NVIDIA driver (no CUDA toolkit is needed); in a container, NVIDIA's container toolkit maps it in (%s)", ErrNoDriver, name, where, why)
	}
	d := &driver{lib: lib}
	// Each function field is bound to the driver's symbol of its name, or of its tag.
	fields := reflect.ValueOf(d).Elem()
	for i := range fields.NumField() {
		f := fields.Type().Field(i)
		if f.Type.Kind() != reflect.Func {
			continue
		}
		sym := cmp.Or(f.Tag.Get("sym"), f.Name)
		addr, err := purego.Dlsym(lib, sym)
		if err != nil || addr == 0 {
			purego.Dlclose(lib)
			return nil, fmt.Errorf("%w: %s has no %s: the driver is too old or not NVIDIA's (R520 or later is needed)", ErrNoDriver, name, sym)
		}
		purego.RegisterFunc(reflect.NewAt(f.Type, unsafe.Pointer(fields.Field(i).UnsafeAddr())).Interface(), addr) // the field, unexported
	}
	return d, nil
}

// check turns a CUresult into an error that names the call and the driver's words for it.
func (d *driver) check(call string, r int32) error {
	if r == 0 {
		return nil
	}
	return &driverError{Call: call, Code: int(r), Name: d.words(d.cuGetErrorName, r), Text: d.words(d.cuGetErrorString, r)}
}

// words returns the driver's name or description of a result, or "" when it has none.
func (d *driver) words(fn func(int32, *uintptr) int32, r int32) string {
	var p uintptr
	if fn(r, &p) != 0 || p == 0 {
		return ""
	}
	return cString(p)
}

// cString copies a C string the driver owns.
func cString(p uintptr) string {
	var out []byte
	for i := uintptr(0); i < 4096; i++ {
		b := *(*byte)(cPointer(p + i))
		if b == 0 {
			break
		}
		out = append(out, b)
	}
	return string(out)
}

// cPointer makes an address of memory outside Go's heap (the driver's, or pinned host
// memory it allocated) a pointer.
func cPointer(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
