"""Runs programs through a built runtime's shared library (C API, ctypes): numpy in, numpy out.

    runtime = tailor.Runtime("build/host-shared/mlp/lib/libtailor.so")
    program = runtime.load("build/host-shared/mlp/mlp.pte")
    program.methods                      # ["forward"]
    program.method("forward").inputs     # [ValueSpec(kind='tensor', dtype='Float', ...)]
    [y] = program.run(x)                 # x: a numpy array per input

Every failure of the C API raises TailorError with the library's message.
"""

import ctypes
import os
from dataclasses import dataclass

import numpy as np

from tailor import c_library as C

_NUMPY_TO_DTYPE = {np.dtype(np.uint8): "Byte", np.dtype(np.int8): "Char",
                   np.dtype(np.int16): "Short", np.dtype(np.int32): "Int",
                   np.dtype(np.int64): "Long", np.dtype(np.float16): "Half",
                   np.dtype(np.float32): "Float", np.dtype(np.float64): "Double",
                   np.dtype(np.bool_): "Bool"}
_DTYPE_TO_NUMPY = {name: dtype for dtype, name in _NUMPY_TO_DTYPE.items()}
_DTYPE_NAMES = {code: name for name, code in C.DTYPES.items()}
_KIND_NAMES = {C.KIND_TENSOR: "tensor", C.KIND_INT: "int", C.KIND_DOUBLE: "double",
               C.KIND_BOOL: "bool", C.KIND_OTHER: "other"}


class TailorError(RuntimeError):
    """A C API call failed: `status` is its tl_status name ("InvalidArgument")."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ValueSpec:
    """One input or output of a method: kind ("tensor", "int", "double", "bool",
    "other"), dtype (the runtime's name: "Float", "Long", ...), shape (for a dynamic
    input, the upper bounds) and whether it is dynamic."""
    kind: str
    dtype: str
    shape: tuple
    dynamic: bool

    @staticmethod
    def from_info(info: C.ValueInfo) -> "ValueSpec":
        return ValueSpec(_KIND_NAMES.get(info.kind, "other"), _DTYPE_NAMES.get(info.dtype, "?"),
                         tuple(info.sizes[:info.rank]), bool(info.is_dynamic))


def _to_bfloat16_bits(array: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), rounding to nearest even."""
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bfloat16_bits(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) -> float32, exactly."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


class Runtime:
    """A shared library built with `scons ... lib=shared`: the runtime, its kernels and
    the C API. Programs it loads can run only operators that build selected."""

    def __init__(self, library_path: str):
        path = os.fspath(library_path)
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as e:
            raise TailorError("AccessFailed", f"cannot load the Tailor runtime library "
                              f"{path}: {e} (build one with scons model=M lib=shared)") from None
        try:
            self._lib = C.declare(lib)
        except AttributeError as e:
            raise TailorError("NotSupported", f"{path} is not a Tailor runtime library "
                              f"(no C API function {e})") from None
        version = self._lib.tl_api_version()
        if version != C.C_API_VERSION:
            raise TailorError("NotSupported", f"{path} has C API version {version}, this "
                              f"package speaks version {C.C_API_VERSION}")
        self.path = path

    def check(self, status: int) -> None:
        """Raises TailorError with the library's message unless `status` is TL_OK."""
        if status != 0:
            raise TailorError(self._lib.tl_status_name(status).decode(),
                              self._lib.tl_last_error().decode(errors="replace"))

    def load(self, program_path) -> "Program":
        """Maps and verifies the program file."""
        handle = ctypes.c_void_p()
        self.check(self._lib.tl_program_load_file(os.fsencode(program_path),
                                                  ctypes.byref(handle)))
        return Program(self, handle)

    def load_bytes(self, data: bytes) -> "Program":
        """Loads a program from bytes (the library keeps its own copy)."""
        handle = ctypes.c_void_p()
        self.check(self._lib.tl_program_load_buffer(data, len(data), ctypes.byref(handle)))
        return Program(self, handle)


class Program:
    """A loaded program: its method names, and its methods loaded on first use."""

    def __init__(self, runtime: Runtime, handle: ctypes.c_void_p):
        self._runtime = runtime
        self._lib = runtime._lib
        self._handle = handle
        self._methods = {}
        count = ctypes.c_size_t()
        runtime.check(self._lib.tl_program_method_count(handle, ctypes.byref(count)))
        names = []
        for i in range(count.value):
            name = ctypes.c_char_p()
            runtime.check(self._lib.tl_program_method_name(handle, i, ctypes.byref(name)))
            names.append(name.value.decode())
        self.methods = names

    def method(self, name: str = "forward", threads: int = 1) -> "Method":
        """Method `name`, loaded once (with `threads` for its kernels and delegates)."""
        if (name, threads) not in self._methods:
            if self._handle is None:
                raise TailorError("InvalidState", "the program is closed")
            options = C.MethodOptions(num_threads=threads)
            handle = ctypes.c_void_p()
            self._runtime.check(self._lib.tl_method_load(self._handle, name.encode(),
                                                         ctypes.byref(options),
                                                         ctypes.byref(handle)))
            self._methods[(name, threads)] = Method(self._runtime, handle, name)
        return self._methods[(name, threads)]

    def run(self, *inputs, method: str = "forward") -> list:
        """Runs `method` on one numpy array (or Python scalar) per input; returns its
        outputs as numpy arrays."""
        return self.method(method).run(*inputs)

    def close(self) -> None:
        """Frees the program; methods already loaded stay usable until they are freed."""
        if self._handle is not None:
            self._lib.tl_program_destroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        for m in self._methods.values():
            m.close()

    def __del__(self):
        self.close()


class Method:
    """A loaded method: its input and output specs, and run()."""

    def __init__(self, runtime: Runtime, handle: ctypes.c_void_p, name: str):
        self._runtime = runtime
        self._lib = runtime._lib
        self._handle = handle
        self.name = name
        self.inputs = self._specs(self._lib.tl_method_input_count, self._lib.tl_method_input_info)
        self.outputs = self._specs(self._lib.tl_method_output_count,
                                   self._lib.tl_method_output_info)

    def _specs(self, count_function, info_function) -> list:
        count = ctypes.c_size_t()
        self._runtime.check(count_function(self._handle, ctypes.byref(count)))
        specs = []
        for i in range(count.value):
            info = C.ValueInfo()
            self._runtime.check(info_function(self._handle, i, ctypes.byref(info)))
            specs.append(ValueSpec.from_info(info))
        return specs

    def run(self, *inputs) -> list:
        """Sets every input, runs once, returns the outputs (new numpy arrays)."""
        if self._handle is None:
            raise TailorError("InvalidState", f"method '{self.name}' is closed")
        if len(inputs) != len(self.inputs):
            raise TailorError("InvalidArgument", f"method '{self.name}' takes "
                              f"{len(self.inputs)} inputs, got {len(inputs)}")
        for index, (value, spec) in enumerate(zip(inputs, self.inputs)):
            self._set_input(index, value, spec)
        self._runtime.check(self._lib.tl_method_execute(self._handle))
        return [self._output(i) for i in range(len(self.outputs))]

    def set_seed(self, seed: int) -> None:
        """Seeds the random operators (rand, randn, dropout) and restarts their sequence:
        the k-th run after set_seed(s) draws the same numbers for the same s."""
        if self._handle is None:
            raise TailorError("InvalidState", f"method '{self.name}' is closed")
        self._runtime.check(self._lib.tl_method_set_seed(self._handle, seed))

    def _set_input(self, index: int, value, spec: ValueSpec) -> None:
        array = np.asarray(value)  # (ascontiguousarray would make a scalar 1-d)
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        if spec.dtype == "BFloat16" and array.dtype == np.float32:
            array, dtype = _to_bfloat16_bits(array), "BFloat16"  # numpy has no bfloat16
        elif array.dtype in _NUMPY_TO_DTYPE:
            dtype = _NUMPY_TO_DTYPE[array.dtype]
        else:
            raise TailorError("InvalidArgument", f"method '{self.name}': input {index}: numpy "
                              f"dtype {array.dtype} has no Tailor dtype (expected {spec.dtype})")
        sizes = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self._runtime.check(self._lib.tl_method_set_input(
            self._handle, index, C.DTYPES[dtype], array.ctypes.data, array.nbytes, sizes,
            array.ndim))

    def _output(self, index: int) -> np.ndarray:
        info = C.ValueInfo()
        self._runtime.check(self._lib.tl_method_output_info(self._handle, index,
                                                            ctypes.byref(info)))
        spec = ValueSpec.from_info(info)
        bfloat16 = spec.dtype == "BFloat16"
        dtype = np.uint16 if bfloat16 else _DTYPE_TO_NUMPY.get(spec.dtype)
        if dtype is None:
            raise TailorError("NotSupported", f"method '{self.name}': output {index} is a "
                              f"{spec.kind} of dtype {spec.dtype}, which numpy cannot hold")
        array = np.empty(spec.shape, dtype=dtype)
        self._runtime.check(self._lib.tl_method_copy_output(self._handle, index,
                                                            array.ctypes.data, array.nbytes))
        return _from_bfloat16_bits(array) if bfloat16 else array

    def close(self) -> None:
        """Frees the method and its memory."""
        if self._handle is not None:
            self._lib.tl_method_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()
