"""hermes-gateway: removes the folders a killed gateway left on a remote backend.

A folder `hermes-rexec-*` or `hermes-rkernel-*` directly under the backend's temp folder,
owned by this user, not a symlink, last changed over a minute ago, whose `.lock` no live
runner holds (every runner keeps an exclusive flock on its folder's `.lock` while it lives),
is removed. Prepended to the stream runner; the file transport runs it with
`sweep_folders(TMP)` appended. Stdlib only, Python >= 3.8.
"""

import os as _sw_os
import re as _sw_re

_SW_NAME = _sw_re.compile(r"^hermes-r(?:exec|kernel)-[A-Za-z0-9]+$")
_SW_MIN_AGE = 60.0


def sweep_folders(tmp, now=None):
    """Removes stale folders of ours under `tmp`; returns how many."""
    import fcntl
    import shutil
    import stat
    import time

    now = time.time() if now is None else now
    removed = 0
    try:
        names = _sw_os.listdir(tmp)
    except OSError:
        return 0
    for name in names:
        if not _SW_NAME.match(name):
            continue
        path = _sw_os.path.join(tmp, name)
        try:
            info = _sw_os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != _sw_os.getuid() or now - info.st_mtime < _SW_MIN_AGE:
            continue
        fd = None
        try:
            fd = _sw_os.open(_sw_os.path.join(path, ".lock"), _sw_os.O_RDONLY | getattr(_sw_os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            pass  # never locked (a gateway killed while making it): old enough to go
        except OSError:
            continue
        try:
            if fd is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # a live runner holds it
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
        finally:
            if fd is not None:
                _sw_os.close(fd)
    return removed
