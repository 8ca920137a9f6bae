//go:build linux && (amd64 || arm64)

package gpu

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The driver API's constants the package uses.
const (
	attrSMs           = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	attrThreadsPerSM  = 39 // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
	attrCCMajor       = 75
	attrCCMinor       = 76
	jitInfoLog        = 3 // CU_JIT_INFO_LOG_BUFFER
	jitInfoLogSize    = 4
	jitErrorLog       = 5 // CU_JIT_ERROR_LOG_BUFFER
	jitErrorLogSize   = 6
	hostAllocMapped   = 0x02 // CU_MEMHOSTALLOC_DEVICEMAP
	hostAllocPortable = 0x01
	launchParamBuffer = 1 // CU_LAUNCH_PARAM_BUFFER_POINTER
	launchParamSize   = 2 // CU_LAUNCH_PARAM_BUFFER_SIZE
	logBytes          = 16 << 10
	blockThreads      = 256
	funcLocalBytes    = 3       // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
	funcRegisters     = 4       // CU_FUNC_ATTRIBUTE_NUM_REGS
	queueCap          = 1 << 22 // donated roots the queue holds (168 MB)
)

// A Device is one GPU with the kernel loaded in its primary context. Every call to the
// driver runs on one OS thread of its own (the context is current there), so a Device may
// be used from any goroutine; its engines' searches run one at a time.
type Device struct {
	d      *driver
	dev    int32
	ctx    uintptr
	info   Info
	mod    uintptr
	entry  []uintptr    // each kind's kernel (kinds)
	grow   [][2]uintptr // each kind's kernels of its frontier's growth, count and write (0: none)
	order  uintptr      // the growth's last level's order (ida_grow_order)
	tune   Tune
	trap   uintptr // the kernel trap, for the tests of a failed launch
	calls  chan func()
	done   chan struct{} // closed by Close
	exited chan struct{} // closed once the device is released
	once   sync.Once

	host    uintptr // pinned host memory: the launch's arguments, the JIT's logs, the cancel flag
	hostDev uint64  // its device address (the cancel flag is read there)
	broken  error   // a kernel failed: the context is unusable
}

// Offsets in the pinned host buffer.
const (
	hostArgs     = 0   // the kernel's two arguments (device addresses)
	hostArgsSize = 16  // CU_LAUNCH_PARAM_BUFFER_SIZE's value
	hostExtra    = 32  // cuLaunchKernel's extra array: 5 words
	hostCancel   = 128 // the cancel flag (uint32)
	hostInfoLog  = 256
	hostErrLog   = hostInfoLog + logBytes
	hostSize     = hostErrLog + logBytes
)

// Open loads the driver, opens the GPU and compiles the kernel for it.
func Open(opt Options) (*Device, error) {
	tune := opt.Tune
	d, err := loadDriver(opt.Library)
	if err != nil {
		return nil, err
	}
	dv := &Device{d: d, tune: tune, calls: make(chan func()), done: make(chan struct{}), exited: make(chan struct{})}
	ready := make(chan error)
	go dv.loop(opt.Ordinal, ready)
	if err := <-ready; err != nil {
		if faulted.Load() {
			return nil, fmt.Errorf("%w (a kernel failed earlier in this process, and the NVIDIA driver keeps that error for the whole process: start a new process to use the GPU again)", err)
		}
		return nil, err
	}
	return dv, nil
}

// faulted is set once a kernel of this process has failed: the driver (580 at least) then
// fails every call of the process, a new context's too (CUDA_ERROR_LAUNCH_FAILED).
var faulted atomic.Bool

// loop is the Device's OS thread: it opens the device, then runs calls until Close.
func (dv *Device) loop(ordinal int, ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(dv.exited)
	if err := dv.open(ordinal); err != nil {
		dv.release()
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case f := <-dv.calls:
			f()
		case <-dv.done:
			dv.release()
			return
		}
	}
}

// do runs f on the Device's thread, unless a kernel has failed on it (dv.broken).
func (dv *Device) do(f func() error) error {
	errc := make(chan error, 1)
	select {
	case dv.calls <- func() {
		if dv.broken != nil {
			errc <- dv.broken // a kernel failed: every call would fail
			return
		}
		errc <- f()
	}:
	case <-dv.done:
		return fmt.Errorf("%w: the device is closed", errNoDevice)
	}
	return <-errc
}

// Probe loads the driver and checks the GPU that opt names, as Open does, without opening
// it: no context is made, nothing compiled. It returns what Open would say of it.
func Probe(opt Options) (Info, error) {
	d, err := loadDriver(opt.Library)
	if err != nil {
		return Info{}, err
	}
	dv := &Device{d: d}
	err = dv.probe(opt.Ordinal)
	return dv.info, err
}

// open probes the device, then makes its context and compiles the kernel.
func (dv *Device) open(ordinal int) error {
	if err := dv.probe(ordinal); err != nil {
		return err
	}
	d := dv.d
	if err := d.check("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&dv.ctx, dv.dev)); err != nil {
		return fmt.Errorf("%w: %v", errInit, err)
	}
	if err := d.check("cuCtxSetCurrent", d.cuCtxSetCurrent(dv.ctx)); err != nil {
		return fmt.Errorf("%w: %v", errInit, err)
	}
	var total uint64
	if err := d.check("cuMemGetInfo_v2", d.cuMemGetInfo(&dv.info.Free, &total)); err != nil {
		return fmt.Errorf("%w: %v", errInit, err)
	}
	if err := d.check("cuMemHostAlloc", d.cuMemHostAlloc(&dv.host, hostSize, hostAllocMapped|hostAllocPortable)); err != nil {
		return fmt.Errorf("%w: pinned host memory: %v", errMemory, err)
	}
	if err := d.check("cuMemHostGetDevicePointer_v2", d.cuMemHostGetDevicePointer(&dv.hostDev, dv.host, 0)); err != nil {
		return fmt.Errorf("%w: mapped host memory: %v", errInit, err)
	}
	return dv.load(kernelPTX)
}

// probe reads what the driver says of the GPU of that ordinal, and checks that the kernel
// runs on it.
func (dv *Device) probe(ordinal int) error {
	d := dv.d
	if err := d.check("cuInit", d.cuInit(0)); err != nil {
		return fmt.Errorf("%w: %v (is the GPU visible to this process? nvidia-smi lists the GPUs the driver sees)", errInit, err)
	}
	var n, v int32
	if err := d.check("cuDeviceGetCount", d.cuDeviceGetCount(&n)); err != nil {
		return fmt.Errorf("%w: %v", errInit, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: the driver sees no GPU", errNoDevice)
	}
	if ordinal < 0 || ordinal >= int(n) {
		return fmt.Errorf("%w: GPU %d asked for, the driver sees %d (0 to %d)", errNoDevice, ordinal, n, n-1)
	}
	if err := d.check("cuDeviceGet", d.cuDeviceGet(&dv.dev, int32(ordinal))); err != nil {
		return fmt.Errorf("%w: %v", errNoDevice, err)
	}
	dv.info.Ordinal = ordinal
	var name [256]byte
	if err := d.check("cuDeviceGetName", d.cuDeviceGetName(&name[0], int32(len(name)), dv.dev)); err != nil {
		return fmt.Errorf("%w: %v", errNoDevice, err)
	}
	for i, c := range name {
		if c == 0 {
			dv.info.Name = string(name[:i])
			break
		}
	}
	d.cuDriverGetVersion(&v)
	dv.info.Driver = int(v)
	var a int32
	for _, q := range []struct {
		attr int32
		to   *int
	}{{attrSMs, &dv.info.SMs}, {attrThreadsPerSM, &dv.info.ThreadsPerSM}, {attrCCMajor, &dv.info.Capability[0]}, {attrCCMinor, &dv.info.Capability[1]}} {
		if err := d.check("cuDeviceGetAttribute", d.cuDeviceGetAttribute(&a, q.attr, dv.dev)); err != nil {
			return fmt.Errorf("%w: %v", errNoDevice, err)
		}
		*q.to = int(a)
	}
	if err := d.check("cuDeviceTotalMem_v2", d.cuDeviceTotalMem(&dv.info.Memory, dv.dev)); err != nil {
		return fmt.Errorf("%w: %v", errNoDevice, err)
	}
	if dv.info.Capability[0] < 7 || dv.info.Capability[0] == 7 && dv.info.Capability[1] < 5 {
		return fmt.Errorf("%w: %s has compute capability %d.%d; the kernel needs 7.5 (Turing) or later", errNoDevice, dv.info.Name, dv.info.Capability[0], dv.info.Capability[1])
	}
	return nil
}

// hostBytes is the pinned host buffer as bytes.
func (dv *Device) hostBytes() []byte { return unsafe.Slice((*byte)(cPointer(dv.host)), hostSize) }

// load compiles and loads the kernel, with the JIT's error log on failure.
func (dv *Device) load(ptx []byte) error {
	d := dv.d
	h := dv.hostBytes()
	clear(h[hostInfoLog:hostSize])
	// The options and their values, in pinned memory too: the driver writes the logs'
	// sizes back into the values.
	opts := []int32{jitInfoLog, jitInfoLogSize, jitErrorLog, jitErrorLogSize}
	vals := []uintptr{dv.host + hostInfoLog, logBytes, dv.host + hostErrLog, logBytes}
	image := append(append([]byte(nil), ptx...), 0)
	r := d.cuModuleLoadDataEx(&dv.mod, unsafe.Pointer(&image[0]), uint32(len(opts)), unsafe.Pointer(&opts[0]), unsafe.Pointer(&vals[0]))
	runtime.KeepAlive(image)
	runtime.KeepAlive(opts)
	runtime.KeepAlive(vals)
	if err := d.check("cuModuleLoadDataEx", r); err != nil {
		log := cString(dv.host + hostErrLog)
		if log == "" {
			log = "(no log)"
		}
		return fmt.Errorf("%w for %s (compute capability %d.%d, driver CUDA %s; the PTX needs driver R520 or later): %v\n%s",
			ErrJIT, dv.info.Name, dv.info.Capability[0], dv.info.Capability[1], dv.info.DriverVersion(), err, log)
	}
	dv.entry = make([]uintptr, len(kinds))
	get := func(to *uintptr, name string) error {
		if err := d.check("cuModuleGetFunction", d.cuModuleGetFunction(to, dv.mod, name)); err != nil {
			return fmt.Errorf("%w: kernel %s: %v", ErrJIT, name, err)
		}
		return nil
	}
	dv.grow = make([][2]uintptr, len(kinds))
	for i, k := range kinds {
		if err := get(&dv.entry[i], k.entry); err != nil {
			return err
		}
		if !k.grows {
			continue
		}
		if err := get(&dv.grow[i][0], k.growCount()); err != nil {
			return err
		}
		if err := get(&dv.grow[i][1], k.growWrite()); err != nil {
			return err
		}
	}
	if err := get(&dv.order, "ida_grow_order"); err != nil {
		return err
	}
	return get(&dv.trap, "trap")
}

// release frees what open made (on the device's thread).
func (dv *Device) release() {
	d := dv.d
	if dv.mod != 0 {
		d.cuModuleUnload(dv.mod)
		dv.mod = 0
	}
	if dv.host != 0 {
		d.cuMemFreeHost(dv.host)
		dv.host = 0
	}
	if dv.ctx != 0 {
		d.cuDevicePrimaryCtxRelease(dv.dev)
		dv.ctx = 0
	}
}

// Info describes the device.
func (dv *Device) Info() Info { return dv.info }

// Close releases the device (its primary context, once no other user holds it): its
// engines may no longer be used.
func (dv *Device) Close() error {
	dv.once.Do(func() { close(dv.done) })
	<-dv.exited
	return nil
}

// alloc allocates n bytes of device memory, saying what for when it cannot.
func (dv *Device) alloc(n uint64, what string) (uint64, error) {
	var p uint64
	if err := dv.d.check("cuMemAlloc_v2", dv.d.cuMemAlloc(&p, max(n, 1))); err != nil {
		var free, total uint64
		dv.d.cuMemGetInfo(&free, &total)
		return 0, fmt.Errorf("%w: %s takes %.1f MB, %.1f MB of %.1f MB are free on %s: %v", errMemory, what, float64(n)/1e6, float64(free)/1e6, float64(total)/1e6, dv.info.Name, err)
	}
	return p, nil
}

// upload copies b to device memory at p.
func (dv *Device) upload(p uint64, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	err := dv.d.check("cuMemcpyHtoD_v2", dv.d.cuMemcpyHtoD(p, unsafe.Pointer(&b[0]), uint64(len(b))))
	runtime.KeepAlive(b)
	return err
}

// download copies device memory at p into b.
func (dv *Device) download(b []byte, p uint64) error {
	if len(b) == 0 {
		return nil
	}
	err := dv.d.check("cuMemcpyDtoH_v2", dv.d.cuMemcpyDtoH(unsafe.Pointer(&b[0]), p, uint64(len(b))))
	runtime.KeepAlive(b)
	return err
}

// free releases device memory at p.
func (dv *Device) free(p uint64) { dv.d.cuMemFree(p) }

// zero sets n bytes of device memory at p to 0.
func (dv *Device) zero(p, n uint64) error {
	return dv.d.check("cuMemsetD8_v2", dv.d.cuMemsetD8(p, 0, n))
}

// launch runs kernel fn on grid blocks of blockThreads with the two arguments, and waits
// for its end; a failure leaves the device broken (do then refuses every call). It runs
// on the device's thread (do).
func (dv *Device) launch(fn uintptr, grid uint32, a0, a1 uint64) error {
	h := dv.hostBytes()
	binary.LittleEndian.PutUint64(h[hostArgs:], a0)
	binary.LittleEndian.PutUint64(h[hostArgs+8:], a1)
	binary.LittleEndian.PutUint64(h[hostArgsSize:], 16)
	for i, v := range []uint64{launchParamBuffer, uint64(dv.host + hostArgs), launchParamSize, uint64(dv.host + hostArgsSize), 0} {
		binary.LittleEndian.PutUint64(h[hostExtra+8*i:], v)
	}
	d := dv.d
	err := d.check("cuLaunchKernel", d.cuLaunchKernel(fn, grid, 1, 1, blockThreads, 1, 1, 0, 0, 0, dv.host+hostExtra))
	if err == nil {
		err = d.check("cuCtxSynchronize", d.cuCtxSynchronize())
	}
	if err != nil {
		dv.broken = fmt.Errorf("%w on %s: %v; the GPU is unusable in this process (the driver keeps a failed kernel's error for the whole process): start a new one", ErrLaunch, dv.info.Name, err)
		faulted.Store(true)
		return dv.broken
	}
	return nil
}

// kernels says what the driver compiled each search's kernel to for this card: its
// registers and local memory a thread (its stack frame, spills included).
func (dv *Device) kernels() (out []KernelUse) {
	dv.do(func() error {
		for i, k := range kinds {
			var regs, local int32
			dv.d.cuFuncGetAttribute(&regs, funcRegisters, dv.entry[i])
			dv.d.cuFuncGetAttribute(&local, funcLocalBytes, dv.entry[i])
			out = append(out, KernelUse{Name: k.entry, Registers: int(regs), LocalBytes: int(local)})
		}
		return nil
	})
	return out
}

// Trap runs a kernel that faults, for the tests: it returns the launch's error (matching
// ErrLaunch), after which the device is unusable.
func (dv *Device) Trap() error {
	return dv.do(func() error { return dv.launch(dv.trap, 1, 0, 0) })
}
