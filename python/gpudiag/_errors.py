"""GpudiagError: what went wrong, where (the library's gpudiag_error, or the command's message)."""

# The library's status codes (include/gpudiag/gpudiag.h) and the exit status `gpudiag analyze`
# gives for each (src/util/exit_codes.h).
STATUS_NAMES = {0: "ok", 1: "io", 2: "format", 3: "nomem", 4: "arg", 5: "internal", 6: "nodev", 7: "nomatch"}
EXIT_OF_CODE = {"ok": 0, "io": 3, "format": 3, "arg": 2, "nomem": 5, "internal": 5, "nodev": 4,
                "nomatch": 6, "not_installed": 127}


class GpudiagError(Exception):
    """gpudiag could not analyse the input.

    code:        "io" (cannot open or read), "format" (not an input gpudiag reads, or broken),
                 "arg" (a bad option), "nomatch" (steps or ranks selected nothing), "nomem",
                 "internal", "nodev", or "not_installed" (neither libgpudiag.so.0 nor the
                 gpudiag command was found).
    file:        the input at fault, or None.
    offset:      the byte offset where the problem was found (into the decompressed input; for a
                 monitoring log, of the line at fault), or None.
    message:     gpudiag's message.
    exit_status: the exit status `gpudiag analyze` gives for it (3 input, 2 usage, 6 nothing
                 selected, 5 internal; 127 not installed).
    """

    def __init__(self, code, message, file=None, offset=None, exit_status=None):
        self.code = code
        self.message = message
        self.file = file
        self.offset = offset
        self.exit_status = EXIT_OF_CODE.get(code, 5) if exit_status is None else exit_status
        where = ""
        if file:
            where = "%s: " % file
            if offset is not None:
                where += "byte %d: " % offset
        super().__init__("%s%s [%s]" % (where, message, code))
