"""hermes-gateway session kernel: runs cells in one persistent namespace.

Started by Node (src/execute-code/kernel/) under hermes_supervisor.py (which leads the
process group and kills whatever a cell leaves behind), or as the group's leader itself, with
    fd 0  /dev/null
    fd 1  pipe: the cells' stdout        fd 2  pipe: the cells' stderr
    fd 3  socket: control frames, both ways
    fd 4  socket: lifeline; Node never writes it, end-of-file means Node is gone

Control frames are `u32 big-endian length` + body; the body's first byte is its kind.
    Node -> kernel   C <32 hex marker> <cell source, UTF-8>
    kernel -> Node   H <protocol version>          ready
                     O                             the cell finished
                     E <traceback, UTF-8>          the cell raised; the kernel lives on
                     X i<int> | n | s<text>        the cell called sys.exit(); the kernel ends
After each cell the kernel flushes sys.stdout and sys.stderr, puts the output pipes back on
fds 1 and 2 (and fresh sys.stdout/sys.stderr) if the cell closed or redirected them, writes
the cell's marker to the pipes (through private duplicates, so a cell that redirected fd 1
cannot lose it), then sends the reply frame. Node ends the cell's output at the marker, which a cell cannot
guess, and nothing a cell prints reaches fd 3.

Stdlib only, Python >= 3.8. Imports are kept to what the interpreter already loaded; the
rest (linecache, traceback) load lazily so a cold start stays short.
"""

import os
import sys

PROTOCOL_VERSION = b"1"
MAX_FRAME = 16 * 1024 * 1024  # a cell's source is capped by Node below this
MAX_TRACEBACK = 256 * 1024
SIGKILL = 9


def file_id(fd):
    """What fd refers to (device, inode), or None when it is closed."""
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _main():
    import _thread
    import builtins
    import io

    try:
        # os.dup() makes non-inheritable copies: subprocesses of cells never hold them.
        # All four are taken before 3 and 4 are closed, so none of them lands on 3 or 4.
        ctl = os.dup(3)
        life = os.dup(4)
    except OSError:
        sys.stderr.write("kernel_runner.py is started by hermes-gateway with control descriptors 3 and 4\n")
        sys.exit(2)
    out_mark_fd = os.dup(1)
    err_mark_fd = os.dup(2)
    os.close(3)
    os.close(4)
    pgid = os.getpgrp()
    kernel_pid = os.getpid()

    def die():
        # Node is gone: take the whole group (the cells' subprocesses too) down with us, but
        # only when the group is ours: a runner started inside another's group must not kill it.
        try:
            if pgid == kernel_pid:
                os.killpg(pgid, SIGKILL)
        finally:
            os.kill(kernel_pid, SIGKILL)

    def watch_lifeline():
        # Warm the traceback machinery off the startup path; cells register their source in it.
        try:
            import linecache  # noqa: F401
        except Exception:
            pass
        while True:
            try:
                if not os.read(life, 1):
                    break
            except OSError:
                break
        die()

    # Unbuffered, write-through text streams (what `python -u` builds), so print() and a
    # subprocess writing to the same descriptor land in the order they happened.
    def text_stream(fd, old):
        raw = io.FileIO(fd, "w", closefd=False)
        return io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, write_through=True)

    sys.stdout = sys.__stdout__ = text_stream(1, sys.__stdout__)
    sys.stderr = sys.__stderr__ = text_stream(2, sys.__stderr__)
    # Encoding and error handler of each stream, for the replacements restore_std() makes.
    formats = {1: sys.stdout, 2: sys.stderr}
    std_streams = ((1, out_mark_fd, "stdout"), (2, err_mark_fd, "stderr"))
    pipe_ids = {fd: file_id(mark) for fd, mark, _ in std_streams}

    def restore_std():
        # A cell that ran os.close(1), os.dup2(f.fileno(), 2) or sys.stdout.close() must not
        # take the next cell's output with it: the pipes go back on 1 and 2, closed streams
        # are replaced.
        for fd, mark, name in std_streams:
            if file_id(fd) != pipe_ids[fd]:
                try:
                    os.dup2(mark, fd)
                except OSError:
                    pass
            stream = getattr(sys, name)
            if stream is None or getattr(stream, "closed", False):
                fresh = text_stream(fd, formats[fd])
                setattr(sys, name, fresh)
                setattr(sys, "__%s__" % name, fresh)

    # Cell code sees a fresh __main__ module, like `python -c`: nothing of this runner.
    main_module = type(sys)("__main__")
    namespace = main_module.__dict__
    namespace["__builtins__"] = builtins
    sys.modules["__main__"] = main_module
    sys.argv = [""]
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and sys.path[0] and os.path.abspath(sys.path[0]) == here:
        sys.path[0] = ""

    def write_all(fd, data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    def send(kind, payload=b""):
        body = kind + payload
        write_all(ctl, len(body).to_bytes(4, "big") + body)

    def read_exact(n):
        chunks = []
        while n:
            chunk = os.read(ctl, n)
            if not chunk:
                return None
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    exit_code = [None]

    def run_cell(source):
        import linecache

        linecache.cache["<cell>"] = (len(source), None, source.splitlines(True), "<cell>")
        try:
            exec(compile(source, "<cell>", "exec", dont_inherit=True), namespace)
        except SystemExit as error:
            exit_code[0] = error.code
            return b"X", exit_payload(error.code)
        except BaseException as error:
            return b"E", format_exception(error)
        finally:
            flush_streams()
        return b"O", b""

    def exit_payload(code):
        if code is None:
            return b"n"
        if isinstance(code, int) and not isinstance(code, bool):
            return b"i" + str(code).encode()
        try:
            text = str(code)
        except BaseException:
            text = "<unprintable exit code>"
        return b"s" + text.encode("utf-8", "backslashreplace")[:MAX_TRACEBACK]

    def format_exception(error):
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code is run_cell.__code__:
            tb = tb.tb_next  # hide the runner's own frame
        try:
            import traceback

            text = "".join(traceback.format_exception(type(error), error, tb))
        except BaseException:
            text = "%s: <exception could not be formatted>\n" % type(error).__name__
        data = text.encode("utf-8", "backslashreplace")
        if len(data) > MAX_TRACEBACK:
            keep = MAX_TRACEBACK // 2
            data = data[:keep] + b"\n... [traceback truncated] ...\n" + data[-keep:]
        return data

    def flush_streams():
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except BaseException:
                pass

    _thread.start_new_thread(watch_lifeline, ())
    send(b"H", PROTOCOL_VERSION)

    while True:
        header = read_exact(4)
        if header is None:
            die()
        size = int.from_bytes(header, "big")
        body = read_exact(size) if 0 < size <= MAX_FRAME else None
        if body is None or body[:1] != b"C" or len(body) < 33:
            die()  # Node broke the protocol or went away: never run a half-read cell
        marker = b"\x00hermes-cell-end:" + body[1:33] + b"\x00"
        kind, payload = run_cell(body[33:].decode("utf-8", "surrogateescape"))
        if os.getpid() != kernel_pid:
            # A process the cell forked fell out of the cell: end it like a script would,
            # without touching the control channel it shares with the kernel.
            code = exit_code[0] if kind == b"X" else (0 if kind == b"O" else 1)
            if kind == b"E":
                os.write(2, payload)
            os._exit(code if isinstance(code, int) else (0 if code is None else 1))
        restore_std()
        try:
            write_all(out_mark_fd, marker)
            write_all(err_mark_fd, marker)
            send(kind, payload)
        except OSError:
            die()
        if kind == b"X":
            return exit_code[0]


if __name__ == "__main__":
    # Returns only when a cell called sys.exit(): end like a script would (atexit handlers,
    # threads joined); Node kills whatever is left of the group shortly after.
    sys.exit(_main())
