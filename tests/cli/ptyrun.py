"""ptyrun.py — run a command with standard error on a pseudo-terminal.

Usage: python3 ptyrun.py STDOUT_FILE STDERR_FILE CMD [ARG...]
Standard output goes to STDOUT_FILE (a plain file, not a terminal); everything
the command writes to the terminal (its standard error) is copied, bytes as
written, to STDERR_FILE.  Exits with the command's status.  For
test_progress.sh: the progress bar shows only when stderr is a terminal.
"""
import os
import pty
import sys


def main():
    out_path, err_path, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    master, slave = pty.openpty()
    pid = os.fork()
    if pid == 0:
        os.close(master)
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(slave, 2)
        os.close(fd)
        os.close(slave)
        os.execvp(argv[0], argv)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        got += chunk
    _, status = os.waitpid(pid, 0)
    os.close(master)
    with open(err_path, "wb") as f:
        f.write(got)
    sys.exit(os.waitstatus_to_exitcode(status))


main()
