"""The fallback: `gpudiag analyze --json [OPTIONS] PATH`, its report parsed, its error message
turned into a GpudiagError."""
import json
import os
import re
import shutil
import subprocess

from ._errors import GpudiagError

# exit status of `gpudiag analyze` -> the library's error name (src/util/exit_codes.h)
_CODE_OF_EXIT = {2: "arg", 3: "format", 4: "nodev", 5: "internal", 6: "nomatch"}


def command():
    return os.environ.get("GPUDIAG_CLI") or shutil.which("gpudiag")


def analyze(path, args):
    cli = command()
    if not cli or not (os.path.isfile(cli) and os.access(cli, os.X_OK)):
        raise GpudiagError("not_installed", "neither libgpudiag.so.0 nor the gpudiag command was found "
                           "(install gpudiag, or set GPUDIAG_LIBRARY or GPUDIAG_CLI)", file=path)
    proc = subprocess.run([cli, "analyze", "--json", "--no-progress"] + list(args) + ["--", path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode not in (0, 1):  # 1: --fail-on matched; the report is still written
        raise _error(proc.returncode, proc.stderr.decode("utf-8", "replace"), path)
    try:
        return json.loads(proc.stdout.decode("utf-8"))
    except ValueError as e:
        raise GpudiagError("internal", "gpudiag printed no JSON report: %s" % e, file=path) from None


def _error(rc, stderr, path):
    lines = [ln for ln in stderr.splitlines() if ln.startswith("gpudiag: error: ")]
    msg = lines[0][len("gpudiag: error: "):] if lines else (stderr.strip() or "exit status %d" % rc)
    file, offset = None, None
    m = re.match(r"(.*?): byte (\d+): (.*)$", msg)
    if m and m.group(1) == path:
        file, offset, msg = m.group(1), int(m.group(2)), m.group(3)
    elif msg.startswith(path + ": "):
        file, msg = path, msg[len(path) + 2:]
    code = _CODE_OF_EXIT.get(rc, "internal")
    if rc == 3 and offset is None and re.search(r"cannot (open|read)", msg):
        code = "io"
    return GpudiagError(code, msg, file=file, offset=offset, exit_status=rc)
