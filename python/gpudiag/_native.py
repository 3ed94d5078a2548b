"""libgpudiag.so.0 through ctypes: gpudiag_analyze_path() and gpudiag_report_json()
(include/gpudiag/gpudiag.h).  load() returns None when no library can be loaded."""
import ctypes
import json
import os
import shutil
import threading

from ._errors import GpudiagError, STATUS_NAMES

SONAME = "libgpudiag.so.0"


class _Error(ctypes.Structure):
    """gpudiag_error."""
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_int64),
                ("path", ctypes.c_char * 512), ("message", ctypes.c_char * 512)]


class _ReadOpts(ctypes.Structure):
    """gpudiag_read_opts, then zeros: the header's rule is that fields are appended, so a newer
    library reads its new fields as zero, their default."""
    _fields_ = [("step_range", ctypes.c_char_p), ("select_steps", ctypes.c_int),
                ("steps_first", ctypes.c_int64), ("steps_last", ctypes.c_int64),
                ("header_only", ctypes.c_int), ("progress", ctypes.c_void_p),
                ("progress_ctx", ctypes.c_void_p), ("_appended", ctypes.c_char * 256)]


INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1


class Library:
    def __init__(self, cdll, path):
        self.path = path
        f = cdll.gpudiag_analyze_path
        f.argtypes = [ctypes.c_char_p, ctypes.POINTER(_ReadOpts), ctypes.c_void_p,
                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_Error)]
        f.restype = ctypes.c_int
        self._analyze_path = f
        f = cdll.gpudiag_report_json
        f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.POINTER(ctypes.c_char)),
                      ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_Error)]
        f.restype = ctypes.c_int
        self._report_json = f
        f = cdll.gpudiag_json_free
        f.argtypes = [ctypes.POINTER(ctypes.POINTER(ctypes.c_char))]
        f.restype = None
        self._json_free = f
        f = cdll.gpudiag_report_free
        f.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        f.restype = None
        self._report_free = f
        self._cdll = cdll

    def analyze(self, path, steps=None, step_range=None):
        """The report of one file as a dict; GpudiagError when the library says no."""
        ro = _ReadOpts()
        if step_range:
            ro.step_range = os.fsencode(step_range)
        if steps is not None:
            ro.select_steps = 1
            ro.steps_first = INT64_MIN if steps[0] is None else steps[0]
            ro.steps_last = INT64_MAX if steps[1] is None else steps[1]
        err = _Error()
        report = ctypes.c_void_p()
        st = self._analyze_path(os.fsencode(path), ctypes.byref(ro), None, ctypes.byref(report), ctypes.byref(err))
        if st != 0:
            raise _error(st, err, path)
        try:
            buf = ctypes.POINTER(ctypes.c_char)()
            n = ctypes.c_size_t()
            err = _Error()
            st = self._report_json(report, 0, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(err))
            if st != 0:
                raise _error(st, err, path)
            try:
                text = ctypes.string_at(buf, n.value)
            finally:
                self._json_free(ctypes.byref(buf))
        finally:
            self._report_free(ctypes.byref(report))
        return json.loads(text.decode("utf-8"))


def _error(status, err, path):
    file = os.fsdecode(err.path) or path
    offset = err.offset if err.offset >= 0 else None
    return GpudiagError(STATUS_NAMES.get(status, "internal"), err.message.decode("utf-8", "replace"),
                        file=file, offset=offset)


def candidates():
    """Where the library is looked for, in order."""
    env = os.environ.get("GPUDIAG_LIBRARY")
    if env:
        return [env]  # the user's choice: nothing else is tried
    out = []
    cli = os.environ.get("GPUDIAG_CLI") or shutil.which("gpudiag")
    if cli:
        d = os.path.dirname(os.path.realpath(cli))
        out.append(os.path.join(d, SONAME))                       # a build tree: beside the binary
        out.append(os.path.join(d, os.pardir, "lib", SONAME))     # PREFIX/bin -> PREFIX/lib
        multi = os.path.join(d, os.pardir, "lib")
        if os.path.isdir(multi):
            out += [os.path.join(multi, e, SONAME) for e in sorted(os.listdir(multi)) if e.endswith("-linux-gnu")]
    out.append(SONAME)                                            # the dynamic loader's search path
    return out


_lock = threading.Lock()
_loaded = []


def load():
    """The library, loaded once; None when no candidate loads."""
    with _lock:
        if _loaded:
            return _loaded[0]
        lib = None
        for c in candidates():
            if os.sep in c and not os.path.exists(c):
                continue
            try:
                lib = Library(ctypes.CDLL(c), c)
                break
            except (OSError, AttributeError):
                continue
        _loaded.append(lib)
        return lib
