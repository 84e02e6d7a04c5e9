"""The CUDA driver API through ctypes, for loading PTX and launching a kernel the way Triton's
launcher does (cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel), on the simulated
driver (tests/simcuda).  Nothing here knows it is a simulator: the same calls would run on
a real libcuda.so.1.
"""
import ctypes
import re

CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6


class CudaError(Exception):
    def __init__(self, call, status, name, log=""):
        super().__init__(f"{call}: {name} ({status}){': ' + log if log else ''}")
        self.status, self.name, self.log = status, name, log


class Driver:
    def __init__(self, libcuda):
        self.lib = ctypes.CDLL(libcuda)
        self.check("cuInit", self.lib.cuInit(0))

    def check(self, call, status, log=""):
        if status != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(status, ctypes.byref(name))
            raise CudaError(call, status, (name.value or b"?").decode(), log)

    def use_device(self, ordinal):
        """Makes device ORDINAL's primary context current; returns its (major, minor)."""
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        self.check("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), ordinal))
        self.check("cuDevicePrimaryCtxRetain",
                   self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
        self.check("cuCtxSetCurrent", self.lib.cuCtxSetCurrent(ctx))
        cc = []
        for attr in (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                     CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR):
            v = ctypes.c_int()
            self.check("cuDeviceGetAttribute", self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, dev))
            cc.append(v.value)
        return tuple(cc)

    def alloc(self, nbytes):
        p = ctypes.c_uint64()
        self.check("cuMemAlloc", self.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(nbytes, 1))))
        return p.value

    def free(self, ptr):
        self.check("cuMemFree", self.lib.cuMemFree_v2(ctypes.c_uint64(ptr)))

    def htod(self, ptr, data):
        self.check("cuMemcpyHtoD", self.lib.cuMemcpyHtoD_v2(ctypes.c_uint64(ptr), data,
                                                            ctypes.c_size_t(len(data))))

    def dtoh(self, ptr, nbytes):
        buf = ctypes.create_string_buffer(nbytes)
        self.check("cuMemcpyDtoH",
                   self.lib.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(ptr), ctypes.c_size_t(nbytes)))
        return buf.raw

    def load_ptx(self, ptx):
        """cuModuleLoadDataEx with an error log; a refusal raises CudaError carrying the log."""
        module = ctypes.c_void_p()
        err = ctypes.create_string_buffer(8192)
        opts = (ctypes.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        vals = (ctypes.c_void_p * 2)(ctypes.cast(err, ctypes.c_void_p), ctypes.c_void_p(len(err)))
        image = ptx.encode() + b"\0"
        st = self.lib.cuModuleLoadDataEx(ctypes.byref(module), image, 2, opts, vals)
        self.check("cuModuleLoadDataEx", st, err.value.decode(errors="replace").strip())
        return module

    def unload(self, module):
        self.check("cuModuleUnload", self.lib.cuModuleUnload(module))

    def function(self, module, name):
        f = ctypes.c_void_p()
        self.check("cuModuleGetFunction",
                   self.lib.cuModuleGetFunction(ctypes.byref(f), module, name.encode()))
        return f

    def launch(self, f, grid, block, shared, params):
        """params: ctypes objects, one per kernel parameter, in order."""
        arr = (ctypes.c_void_p * max(len(params), 1))(
            *[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in params])
        self.check("cuLaunchKernel", self.lib.cuLaunchKernel(
            f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, None, arr, None))
        self.check("cuCtxSynchronize", self.lib.cuCtxSynchronize())


PARAM_TYPES = {"u64": ctypes.c_uint64, "b64": ctypes.c_uint64, "s64": ctypes.c_int64,
               "u32": ctypes.c_uint32, "b32": ctypes.c_uint32, "s32": ctypes.c_int32,
               "f32": ctypes.c_float, "f64": ctypes.c_double}


def entry_params(ptx, name):
    """The ctypes type of each .param of kernel NAME, in order."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        raise ValueError(f"no .entry {name} in the PTX")
    types = []
    for decl in m.group(1).split(","):
        t = re.search(r"\.param\s+\.(\w+)", decl)
        if t:
            if t.group(1) not in PARAM_TYPES:
                raise ValueError(f"parameter type .{t.group(1)} of {name} is not handled")
            types.append(PARAM_TYPES[t.group(1)])
    return types
