"""hermes-gateway supervisor: nothing a command starts outlives it.

    python3 -I -S hermes_supervisor.py CONTROL_FD GRACE_MS -- ARGV...

Becomes a child subreaper, runs ARGV as its child (in the supervisor's process group, with
every descriptor but CONTROL_FD), and from then on every orphan of the tree (`setsid`, double
forks, `start_new_session=True`, `nohup cmd &`) is re-parented to it instead of to init. It
holds no descriptor of the child's output, so the child's pipes close when the tree is gone.

- ARGV ends: every descendant left is killed (hermes_process_tree.py), and the supervisor
  ends the way ARGV did (its exit code, or the same signal).
- SIGTERM, SIGINT or SIGHUP (the gateway terminating the group, which has GRACE_MS to go):
  the descendants that left the group are killed at once and again every 50 ms, and just
  before GRACE_MS is over the whole tree is, ahead of the gateway's SIGKILL of the group.
- CONTROL_FD (a socket the gateway holds; `-` for none):
    gateway -> supervisor   `S <pid> <pid> ...\\n`   kill every descendant but these pids
    supervisor -> gateway   `D <count>\\n`            done
  End of file (the gateway is gone, even by SIGKILL) kills the whole tree.

Stdlib only, Python >= 3.8. hermes_process_tree.py is prepended, or read from beside this file.
"""

if "_pt_sweep" not in globals():
    import os as _sv_os

    with open(_sv_os.path.join(_sv_os.path.dirname(_sv_os.path.abspath(__file__)), "hermes_process_tree.py")) as _sv_file:
        exec(compile(_sv_file.read(), "hermes_process_tree.py", "exec"))

import os as _sv_os  # noqa: E402
import select as _sv_select  # noqa: E402
import signal as _sv_signal  # noqa: E402
import sys as _sv_sys  # noqa: E402
import time as _sv_time  # noqa: E402

_SV_RESET = ("SIGTERM", "SIGINT", "SIGHUP", "SIGCHLD", "SIGPIPE", "SIGXFSZ", "SIGQUIT")


def _sv_exec(argv):
    try:
        for name in _SV_RESET:
            if hasattr(_sv_signal, name):
                _sv_signal.signal(getattr(_sv_signal, name), _sv_signal.SIG_DFL)
        _sv_os.execvp(argv[0], argv)
    except BaseException as error:
        try:
            _sv_os.write(2, ("hermes-supervisor: %s: %s\n" % (argv[0], error)).encode("utf-8", "replace"))
        except BaseException:
            pass
    _sv_os._exit(127)


def _sv_main(args):
    if len(args) < 4 or args[2] != "--":
        _sv_os.write(2, b"usage: hermes_supervisor.py CONTROL_FD GRACE_MS -- ARGV...\n")
        return 2
    ctl = None if args[0] == "-" else int(args[0])
    grace = max(0.0, int(args[1]) / 1000.0)
    argv = args[3:]
    if ctl is not None:
        _sv_os.set_inheritable(ctl, False)
    _pt_subreaper()  # noqa: F821 (hermes_process_tree.py)
    me = _sv_os.getpid()
    group = _sv_os.getpgrp()
    wake_r, wake_w = _sv_os.pipe()
    for fd in (wake_r, wake_w):
        _sv_os.set_blocking(fd, False)
    state = {"status": None, "deadline": None}

    def reap():
        while True:
            try:
                pid, status = _sv_os.waitpid(-1, _sv_os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == child:
                state["status"] = status

    def outside_group(pid):
        try:
            return _sv_os.getpgid(pid) != group
        except OSError:
            return False

    def kill_strays():
        _pt_signal([pid for pid in _pt_tree(me) if outside_group(pid)], _PT_SIGKILL)  # noqa: F821

    def on_term(number, frame):
        kill_strays()
        if state["deadline"] is None:
            state["deadline"] = _sv_time.monotonic() + max(0.0, grace - 0.05)

    _sv_signal.signal(_sv_signal.SIGCHLD, lambda number, frame: None)
    _sv_signal.set_wakeup_fd(wake_w)
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        _sv_signal.signal(getattr(_sv_signal, name), on_term)
    _sv_signal.signal(_sv_signal.SIGPIPE, _sv_signal.SIG_IGN)

    child = _sv_os.fork()
    if child == 0:
        _sv_os.close(wake_r)
        _sv_os.close(wake_w)
        _sv_exec(argv)
    # Hold none of the child's streams or sockets (a kernel's fds 3 and 4): they must close when the tree is gone.
    null = _sv_os.open(_sv_os.devnull, _sv_os.O_RDWR)
    for fd in (0, 1, 2):
        _sv_os.dup2(null, fd)
    _sv_os.close(null)
    try:
        held = [int(name) for name in _sv_os.listdir("/proc/self/fd")]
    except OSError:
        held = list(range(3, 64))
    for fd in held:
        if fd > 2 and fd not in (ctl, wake_r, wake_w):
            try:
                _sv_os.close(fd)
            except OSError:
                pass

    inbuf = b""
    while True:
        reap()
        if state["status"] is not None:
            break
        now = _sv_time.monotonic()
        if state["deadline"] is not None and now >= state["deadline"]:
            _pt_sweep(me, (), reap)  # noqa: F821
            state["deadline"] = now + 1.0
            continue
        if state["deadline"] is not None:
            kill_strays()  # a group member may make new ones while it has its grace
        timeout = None if state["deadline"] is None else min(0.05, max(0.0, state["deadline"] - now))
        readers = [wake_r] if ctl is None else [wake_r, ctl]
        try:
            ready = _sv_select.select(readers, [], [], timeout)[0]
        except InterruptedError:
            continue
        if wake_r in ready:
            try:
                while _sv_os.read(wake_r, 512):
                    pass
            except OSError:
                pass
        if ctl is not None and ctl in ready:
            try:
                data = _sv_os.read(ctl, 4096)
            except OSError:
                data = b""
            if not data:
                # The gateway is gone: nothing of the tree may outlive it.
                _sv_os.close(ctl)
                ctl = None
                _pt_sweep(me, (), reap)  # noqa: F821
                continue
            inbuf += data
            while b"\n" in inbuf:
                line, inbuf = inbuf.split(b"\n", 1)
                if line[:1] != b"S":
                    continue
                try:
                    keep = set(int(word) for word in line[1:].split())
                except ValueError:
                    keep = set()
                count = _pt_sweep(me, keep, reap)  # noqa: F821
                try:
                    _sv_os.write(ctl, b"D %d\n" % count)
                except OSError:
                    pass
    _pt_sweep(me, (), reap)  # noqa: F821
    status = state["status"]
    if _sv_os.WIFSIGNALED(status):
        number = _sv_os.WTERMSIG(status)
        try:
            _sv_signal.signal(number, _sv_signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP cannot be caught anyway
        _sv_os.kill(me, number)
        return 128 + number
    return _sv_os.WEXITSTATUS(status) if _sv_os.WIFEXITED(status) else 1


_sv_sys.exit(_sv_main(_sv_sys.argv[1:]))
