"""hermes-gateway: the one place that kills what a process left behind.

A process that is a child subreaper (prctl PR_SET_CHILD_SUBREAPER) gets every orphan of its
tree as its own child: a `setsid`, a double fork, `start_new_session=True` or `nohup cmd &`
leaves the process group but never this tree. `_pt_sweep(root, keep)` kills every living
descendant of `root` except the pids in `keep` (their descendants are killed too), pass after
pass until none is left, so a process forking while it is killed is caught by the next pass.

Used by hermes_supervisor.py (local and sandbox; SSH and Docker terminal commands) and by
remote_stream_runner.py (SSH and Docker scripts and kernels), each prepending this text.
Linux only (/proc); elsewhere it finds nothing. Stdlib only, Python >= 3.8.
"""

import os as _pt_os
import time as _pt_time

_PT_SIGKILL = 9


def _pt_subreaper():
    """Makes this process a child subreaper; False where the kernel or ctypes refuses."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except Exception:
        return False


def _pt_children(pid):
    """The children of every thread of `pid` (a read of /proc/<pid>/task/<tid>/children each)."""
    found = []
    try:
        tasks = _pt_os.listdir("/proc/%d/task" % pid)
    except OSError:
        return found
    for tid in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid), "rb") as handle:
                found.extend(int(word) for word in handle.read().split())
        except (OSError, ValueError):
            pass
    return found


def _pt_living(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    state = stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3]
    return state not in (b"Z", b"X", b"")


def _pt_tree(root, keep=()):
    """Living descendants of `root` not in `keep`, parents before children."""
    out = []
    todo = list(_pt_children(root))
    while todo:
        pid = todo.pop()
        todo.extend(_pt_children(pid))
        if pid not in keep and _pt_living(pid):
            out.append(pid)
    return out


def _pt_signal(pids, number):
    for pid in pids:
        try:
            _pt_os.kill(pid, number)
        except OSError:
            pass


def _pt_sweep(root, keep=(), reap=None, rounds=2000):
    """SIGKILLs every descendant of `root` but `keep` until none is alive; returns how many.
    `reap` (root's own waitpid loop) is called between passes so killed children of root go."""
    killed = 0
    for attempt in range(rounds):
        pids = _pt_tree(root, keep)
        if not pids:
            break
        _pt_signal(pids, _PT_SIGKILL)
        killed += len(pids)
        if reap is not None:
            reap()
        if attempt:
            _pt_time.sleep(0.001 if attempt < 50 else 0.01)
    return killed
