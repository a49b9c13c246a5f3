"""hermes-gateway remote session kernel: runs cells in one persistent namespace, on a
remote terminal backend, exchanging cells and outcomes as files.

    python3 remote_kernel_runner.py FOLDER IDLE_SECONDS

Started in the background (its own session and process group) in the working folder.
FOLDER is the kernel's private folder (mode 0700): the gateway writes cells/cell_NNNNNN.py
(temporary name, then renamed); the runner deletes it, runs it with fds 1 and 2 sent to
cells/out_NNNNNN and cells/err_NNNNNN, and writes cells/done_NNNNNN (JSON):
    {"kind": "ok"} | {"kind": "exception", "traceback": "..."} | {"kind": "exit", "code": ...}
`ready` holds the runner's pid once it waits for cells; FOLDER/.lock is flocked while it
lives. With no cell for IDLE_SECONDS the runner removes FOLDER and exits; after sys.exit()
in a cell it exits as a script would.
Stdlib only, Python >= 3.8.
"""

import os
import sys
import time

MAX_TRACEBACK = 256 * 1024


def _write_atomic(path, data):
    temp = path + ".tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.rename(temp, path)


def _main():
    import builtins
    import io
    import json
    import shutil

    folder, idle = sys.argv[1], float(sys.argv[2])
    cells = os.path.join(folder, "cells")
    os.makedirs(cells, mode=0o700, exist_ok=True)
    # Held while the runner lives (not inherited by cells' children): the sweep of folders a
    # killed gateway left skips a folder whose lock is held.
    try:
        import fcntl

        fcntl.flock(os.open(os.path.join(folder, ".lock"), os.O_RDWR | os.O_CREAT, 0o600), fcntl.LOCK_EX)
    except (ImportError, OSError):
        pass
    del sys.argv[1:]
    sys.argv[0] = ""
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and sys.path[0] and os.path.abspath(sys.path[0]) == here:
        sys.path[0] = ""

    def text_stream(fd, old):
        raw = io.FileIO(fd, "w", closefd=False)
        return io.TextIOWrapper(raw, encoding="utf-8", errors=old.errors, write_through=True)

    sys.stdout = sys.__stdout__ = text_stream(1, sys.__stdout__)
    sys.stderr = sys.__stderr__ = text_stream(2, sys.__stderr__)
    formats = {1: sys.stdout, 2: sys.stderr}
    main_module = type(sys)("__main__")
    namespace = main_module.__dict__
    namespace["__builtins__"] = builtins
    sys.modules["__main__"] = main_module
    devnull = os.open(os.devnull, os.O_WRONLY)

    def flush():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass

    def run_cell(source):
        import linecache

        linecache.cache["<cell>"] = (len(source), None, source.splitlines(True), "<cell>")
        try:
            exec(compile(source, "<cell>", "exec", dont_inherit=True), namespace)
        except SystemExit as error:
            code = error.code
            if not (code is None or (isinstance(code, int) and not isinstance(code, bool))):
                code = str(code)
            return {"kind": "exit", "code": code}
        except BaseException as error:
            import traceback

            tb = error.__traceback__
            while tb is not None and tb.tb_frame.f_code is run_cell.__code__:
                tb = tb.tb_next
            text = "".join(traceback.format_exception(type(error), error, tb))
            if len(text) > MAX_TRACEBACK:
                text = text[: MAX_TRACEBACK // 2] + "\n... [traceback truncated] ...\n" + text[-MAX_TRACEBACK // 2:]
            return {"kind": "exception", "traceback": text}
        finally:
            flush()
        return {"kind": "ok"}

    _write_atomic(os.path.join(folder, "ready"), str(os.getpid()).encode())
    number = 0
    while True:
        number += 1
        name = "%06d" % number
        path = os.path.join(cells, "cell_" + name + ".py")
        waited_since = time.monotonic()
        delay = 0.001
        while not os.path.exists(path):
            if time.monotonic() - waited_since > idle or not os.path.isdir(folder):
                shutil.rmtree(folder, ignore_errors=True)
                os._exit(0)
            time.sleep(delay)
            delay = min(delay * 1.5, 0.02)
        with open(path, "rb") as handle:
            source = handle.read().decode("utf-8", "surrogateescape")
        os.unlink(path)
        out = os.open(os.path.join(cells, "out_" + name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(os.path.join(cells, "err_" + name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)
        # fds 1 and 2 are set anew for every cell (a cell's os.close(1) does not outlive it);
        # a stream an earlier cell closed is replaced.
        for attr, fd in (("stdout", 1), ("stderr", 2)):
            stream = getattr(sys, attr)
            if stream is None or getattr(stream, "closed", False):
                fresh = text_stream(fd, formats[fd])
                setattr(sys, attr, fresh)
                setattr(sys, "__%s__" % attr, fresh)
        pid = os.getpid()
        outcome = run_cell(source)
        if os.getpid() != pid:
            os._exit(0)  # a process the cell forked fell out of it
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        _write_atomic(os.path.join(cells, "done_" + name), json.dumps(outcome).encode("utf-8"))
        if outcome["kind"] == "exit":
            return outcome["code"]


if __name__ == "__main__":
    sys.exit(_main())
