"""hermes-gateway stream runner: one execute_code script or session kernel on a remote
backend, reached over one long-lived stdio stream (`docker exec -i`, an SSH session).

The gateway starts it with `python3 -I -c LOADER`; the loader reads this file's text from
stdin (ten ASCII digits of length, then the text) and runs it. From then on stdin and stdout
carry only frames: `u32 big-endian length` + body, the body's first byte its kind.

    gateway -> runner   S <JSON setup>          once, first
                        C <bytes>               to the kernel's control socket (fd 3)
                        D <u32 id> <bytes>      to RPC connection id
                        F <u32 id>              the gateway closed connection id
                        K                       terminate the child's group (SIGTERM, grace, SIGKILL)
                        Q                       the same, then end
    runner -> gateway   H <JSON {v, dir, pid, swept}>   the child runs
                        O <bytes> | E <bytes>   the child's stdout | stderr
                        C <bytes>               from the kernel's control socket
                        N <u32 id>              a script connected to the RPC socket
                        D <u32 id> <bytes>      what it sent
                        F <u32 id>              it closed the connection
                        X <JSON {code, signal}> the child ended and its output is drained
                        Z <JSON {error}>        setup failed; the runner ends

The runner owns the real stdin and stdout; the child gets /dev/null, two pipes and (kernel)
fds 3 and 4, so nothing the script prints or writes can reach the stream as a frame. The
child leads its own session. The runner is a child subreaper (hermes_process_tree.py), so
whatever the child starts stays in its tree, `setsid` and double forks included: after each
kernel reply (O, E or X on the control socket) every process but the kernel is killed before
the reply is relayed, and when the child ends, is terminated or the gateway goes, the whole
tree is. The runner
keeps an exclusive flock on FOLDER/.lock while it lives (the sweep skips held folders) and
removes FOLDER when it ends. End of stdin (the gateway or its connection is gone), SIGHUP or
a failed write kill the child's group at once. Stdlib only, Python >= 3.8.

The gateway sends hermes_process_tree.py, remote_sweep.py, remote_stream_relay.py (frames
out, the RPC relay) and this file as one text.
"""

import json as _json
import os as _os
import selectors as _selectors
import signal as _signal
import socket as _socket
import struct as _struct
import sys as _sys
import time as _time

# _write_all, _flush, _Gone, _Conn, _Relay, _CHUNK: remote_stream_relay.py, sent before this file.

_VERSION = "1"
_MAX_FRAME = 64 * 1024 * 1024
_DRAIN_SECONDS = 1.0
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class _Runner(_Relay):  # noqa: F821 (remote_stream_relay.py is prepended)
    def __init__(self):
        _Relay.__init__(self)  # noqa: F821
        self.sel = _selectors.DefaultSelector()
        self.inbuf = bytearray()
        self.dir = None
        self.lock = None
        self.listener = None
        self.pid = None
        self.status = None
        self.pipes = {}
        self.ctl = None
        self.ctl_out = bytearray()
        self.life = None
        self.ctl_head = bytearray()
        self.ctl_left = 0
        self.ctl_kind = b""
        self.kill_at = None
        self.drain_until = None
        self.grace = 5.0
        self.wake_r, self.wake_w = _os.pipe()
        _os.set_blocking(self.wake_r, False)
        _os.set_blocking(self.wake_w, False)

    # ---- frames out ----

    def send(self, kind, payload=b""):
        body = kind + payload
        try:
            _write_all(1, _struct.pack(">I", len(body)) + body)
        except OSError:
            raise _Gone()

    def send_json(self, kind, value):
        self.send(kind, _json.dumps(value).encode("utf-8"))

    # ---- frames in ----

    def take_frame(self):
        """The next whole frame's body from what was read, or None when it is not all in."""
        if len(self.inbuf) < 4:
            return None
        size = _struct.unpack(">I", bytes(self.inbuf[:4]))[0]
        if size == 0 or size > _MAX_FRAME:
            raise _Gone()  # not our gateway speaking: nothing it says can be trusted
        if len(self.inbuf) < 4 + size:
            return None
        body = bytes(self.inbuf[4:4 + size])
        del self.inbuf[:4 + size]
        return body

    def read_frames(self):
        try:
            data = _os.read(0, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            raise _Gone()
        self.inbuf += data
        while True:
            body = self.take_frame()
            if body is None:
                break
            self.on_frame(body[:1], body[1:])

    def read_setup(self):
        while True:
            body = self.take_frame()
            if body is not None:
                if body[:1] != b"S":
                    raise _Gone()
                return _json.loads(body[1:].decode("utf-8"))
            data = _os.read(0, _CHUNK)
            if not data:
                raise _Gone()
            self.inbuf += data

    def on_frame(self, kind, payload):
        if kind == b"C":
            if self.ctl is not None:
                self.ctl_out += payload
                self.update_ctl()
        elif kind in (b"D", b"F"):
            self.on_conn_frame(kind, payload)
        elif kind == b"K":
            self.terminate()
        elif kind == b"Q":
            self.terminate()

    # ---- setup ----

    def setup(self, spec):
        import fcntl
        import tempfile

        _os.umask(0o077)
        tmp = tempfile.gettempdir()
        swept = 0
        if spec.get("sweep"):
            try:
                swept = sweep_folders(tmp)  # noqa: F821 (remote_sweep.py is prepended)
            except Exception:
                swept = 0
        self.grace = max(0.0, float(spec.get("graceMs", 5000)) / 1000.0)
        # Headroom over the gateway's own cap, so its refusal (a line saying why) reaches the script.
        self.max_conns = int(spec.get("maxConnections", 64)) + 8
        prefix = spec["prefix"]
        for _ in range(100):
            rand = _os.urandom(10)
            name = prefix + "-" + "".join(_ALPHABET[b % len(_ALPHABET)] for b in rand)
            path = _os.path.join(tmp, name)
            try:
                _os.mkdir(path, 0o700)
                break
            except FileExistsError:
                continue
        else:
            raise OSError("no free folder name under %s" % tmp)
        self.dir = path
        self.lock = _os.open(_os.path.join(path, ".lock"), _os.O_RDWR | _os.O_CREAT | _os.O_EXCL, 0o600)
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        for fname, text in spec.get("files", {}).items():
            if "/" in fname or fname in ("", ".", ".."):
                raise ValueError("bad file name %r" % fname)
            fd = _os.open(_os.path.join(path, fname), _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL, 0o600)
            try:
                _write_all(fd, text.encode("utf-8", "surrogatepass"))
            finally:
                _os.close(fd)
        sock_path = _os.path.join(path, "rpc.sock")
        listener = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        listener.bind(sock_path)
        _os.chmod(sock_path, 0o600)
        listener.listen(64)
        listener.setblocking(False)
        self.listener = listener
        env = dict(_os.environ)
        env.update(spec.get("env", {}))
        env["PYTHONPATH"] = path
        env["HERMES_RPC_SOCKET"] = sock_path
        sub = lambda value: value.replace("{dir}", path)  # noqa: E731
        argv = [sub(word) for word in spec["argv"]]
        cwd = sub(spec["cwd"]) if spec.get("cwd") else _os.getcwd()
        extra = []
        if spec.get("mode") == "kernel":
            ctl_parent, ctl_child = _socket.socketpair()
            life_parent, life_child = _socket.socketpair()
            extra = [ctl_child.fileno(), life_child.fileno()]
        self.pid = self.spawn(argv, cwd, env, extra)
        if extra:
            ctl_child.close()
            life_child.close()
            ctl_parent.setblocking(False)
            self.ctl = ctl_parent
            self.life = life_parent  # never written: its end closing tells the kernel we are gone
            self.sel.register(self.ctl, _selectors.EVENT_READ, "ctl")
        self.sel.register(0, _selectors.EVENT_READ, "in")
        self.sel.register(self.listener, _selectors.EVENT_READ, "accept")
        self.sel.register(self.wake_r, _selectors.EVENT_READ, "wake")
        for fd in self.pipes:
            self.sel.register(fd, _selectors.EVENT_READ, "pipe")
        self.send_json(b"H", {"v": _VERSION, "dir": path, "pid": self.pid, "swept": swept})

    def spawn(self, argv, cwd, env, extra):
        import fcntl

        out_r, out_w = _os.pipe()
        err_r, err_w = _os.pipe()
        fail_r, fail_w = _os.pipe()
        pid = _os.fork()
        if pid == 0:
            try:
                _os.setsid()
                for number in (_signal.SIGPIPE, _signal.SIGXFSZ, _signal.SIGCHLD, _signal.SIGHUP, _signal.SIGTERM):
                    _signal.signal(number, _signal.SIG_DFL)
                devnull = _os.open(_os.devnull, _os.O_RDONLY)
                high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in [devnull, out_w, err_w] + extra]
                fail = fcntl.fcntl(fail_w, fcntl.F_DUPFD_CLOEXEC, 64 + len(high))
                for target, fd in enumerate(high):
                    _os.dup2(fd, target)
                _os.closerange(len(high), fail)
                _os.closerange(fail + 1, 1 << 20)
                _os.chdir(cwd)
                _os.execvpe(argv[0], argv, env)
            except BaseException as error:
                try:
                    _os.write(fail, ("%s: %s" % (argv[0], error)).encode("utf-8", "replace"))
                except BaseException:
                    pass
            _os._exit(127)
        for fd in (out_w, err_w, fail_w):
            _os.close(fd)
        message = b""
        while True:
            part = _os.read(fail_r, 4096)
            if not part:
                break
            message += part
        _os.close(fail_r)
        if message:
            _os.waitpid(pid, 0)
            _os.close(out_r)
            _os.close(err_r)
            raise OSError("could not start %s" % message.decode("utf-8", "replace"))
        for fd in (out_r, err_r):
            _os.set_blocking(fd, False)
        self.pipes = {out_r: b"O", err_r: b"E"}
        return pid

    # ---- the child ----

    def terminate(self):
        if self.status is not None:
            return
        self.signal_group(_signal.SIGTERM)
        self.signal_strays(_signal.SIGTERM)
        if self.kill_at is None:
            self.kill_at = _time.monotonic() + self.grace

    def signal_group(self, number):
        if self.pid is None:
            return
        try:
            _os.killpg(self.pid, number)
        except OSError:
            pass

    def signal_strays(self, number):
        """Signals the descendants that left the child's group (a setsid, a new session)."""
        if self.pid is None:
            return
        strays = []
        for pid in _pt_tree(_os.getpid()):  # noqa: F821 (hermes_process_tree.py)
            try:
                if _os.getpgid(pid) != self.pid:
                    strays.append(pid)
            except OSError:
                pass
        _pt_signal(strays, number)  # noqa: F821

    def reap_orphans(self):
        """Reaps every child that ended (orphans of the tree come to the subreaper)."""
        while True:
            try:
                pid, status = _os.waitpid(-1, _os.WNOHANG)
            except ChildProcessError:
                if self.pid is not None and self.status is None:
                    self.status = 0
                return
            if pid == 0:
                return
            if pid == self.pid and self.status is None:
                self.status = status

    def sweep(self, keep=()):
        return _pt_sweep(_os.getpid(), keep, self.reap_orphans)  # noqa: F821

    def reap(self):
        if self.pid is None or self.status is not None:
            return
        self.reap_orphans()
        if self.status is None:
            return
        # What the child left in its group and its tree goes with it, while the group id cannot be reused.
        self.signal_group(_signal.SIGKILL)
        self.sweep()
        self.drain_until = _time.monotonic() + _DRAIN_SECONDS

    def exit_info(self):
        status = self.status
        if _os.WIFSIGNALED(status):
            number = _os.WTERMSIG(status)
            try:
                name = _signal.Signals(number).name
            except ValueError:
                name = "SIG%d" % number
            return {"code": None, "signal": name}
        return {"code": _os.WEXITSTATUS(status) if _os.WIFEXITED(status) else None, "signal": None}

    # ---- readiness ----

    def on_pipe(self, fd):
        try:
            data = _os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self.send(self.pipes[fd], data)
            return
        self.sel.unregister(fd)
        _os.close(fd)
        del self.pipes[fd]

    def on_ctl_read(self):
        try:
            data = self.ctl.recv(_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            if self.ends_cell(data) and self.status is None:
                # The cell is over: nothing it started may run on, and the gateway hears of its end after.
                self.sweep((self.pid,))
            self.send(b"C", data)
            return
        self.sel.unregister(self.ctl)
        self.ctl.close()
        self.ctl = None

    def ends_cell(self, data):
        """True when `data` completes a reply frame (O, E, X) of the kernel's control stream."""
        ended = False
        view = memoryview(data)
        while view:
            if self.ctl_left:
                take = min(self.ctl_left, len(view))
                view = view[take:]
                self.ctl_left -= take
                if not self.ctl_left and self.ctl_kind in (b"O", b"E", b"X"):
                    ended = True
                continue
            take = min(5 - len(self.ctl_head), len(view))
            self.ctl_head += view[:take]
            view = view[take:]
            if len(self.ctl_head) < 5:
                break
            self.ctl_left = max(0, _struct.unpack(">I", bytes(self.ctl_head[:4]))[0] - 1)
            self.ctl_kind = bytes(self.ctl_head[4:5])
            self.ctl_head = bytearray()
            if not self.ctl_left and self.ctl_kind in (b"O", b"E", b"X"):
                ended = True
        return ended

    def update_ctl(self):
        if self.ctl is None:
            return
        if self.ctl_out and not _flush(self.ctl, self.ctl_out):
            self.ctl_out = bytearray()
        events = _selectors.EVENT_READ | (_selectors.EVENT_WRITE if self.ctl_out else 0)
        self.sel.modify(self.ctl, events, "ctl")

    # ---- the loop ----

    def run(self):
        while True:
            self.reap()
            now = _time.monotonic()
            if self.status is not None and (not self.pipes or now >= self.drain_until):
                self.send_json(b"X", self.exit_info())
                return
            if self.kill_at is not None and now >= self.kill_at and self.status is None:
                self.signal_group(_signal.SIGKILL)
                self.sweep()
                self.kill_at = now + 1.0
            waits = [t - now for t in (self.kill_at, self.drain_until) if t is not None]
            timeout = max(0.0, min(waits)) if waits else None
            for key, mask in self.sel.select(timeout):
                tag = key.data
                if tag == "in":
                    self.read_frames()
                elif tag == "pipe":
                    self.on_pipe(key.fd)
                elif tag == "ctl":
                    if mask & _selectors.EVENT_READ:
                        self.on_ctl_read()
                    if self.ctl is not None and mask & _selectors.EVENT_WRITE:
                        self.update_ctl()
                elif tag == "accept":
                    self.on_accept()
                elif tag == "wake":
                    try:
                        while _os.read(self.wake_r, 512):
                            pass
                    except OSError:
                        pass
                else:
                    self.on_conn(tag, mask)

    def cleanup(self):
        import shutil

        for ident in list(self.conns):
            self.drop(ident, tell=False)
        if self.listener is not None:
            self.listener.close()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
        if self.lock is not None:
            _os.close(self.lock)


def _not_dumpable():
    # A script of the same (non-root) user cannot then open /proc/<runner>/fd/1 and write
    # frames into the stream itself. Best effort: without ctypes the framing still holds.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except Exception:
        pass


def _hang_up(number, frame):
    raise _Gone()


def _stream_main():
    _not_dumpable()
    _pt_subreaper()  # noqa: F821 (hermes_process_tree.py)
    for fd in (0, 1):
        _os.set_blocking(fd, True)
    runner = _Runner()
    _signal.signal(_signal.SIGCHLD, lambda number, frame: None)
    _signal.set_wakeup_fd(runner.wake_w)
    _signal.signal(_signal.SIGHUP, _hang_up)
    _signal.signal(_signal.SIGPIPE, _signal.SIG_IGN)
    # SIGTERM to the runner (the gateway's last resort) ends the child as a Q frame would.
    _signal.signal(_signal.SIGTERM, lambda number, frame: runner.terminate())
    try:
        spec = runner.read_setup()
        try:
            runner.setup(spec)
        except Exception as error:
            runner.send_json(b"Z", {"error": "%s: %s" % (type(error).__name__, error)})
            return 1
        runner.run()
    except _Gone:
        pass  # the gateway is gone: nothing of the child may outlive it (below)
    finally:
        if runner.pid is not None:
            # The gateway is gone or the child ended: nothing of its tree outlives the runner.
            runner.signal_group(_signal.SIGKILL)
            runner.sweep()
            if runner.status is None:
                try:
                    _os.waitpid(runner.pid, 0)
                except OSError:
                    pass
        runner.cleanup()
    return 0


_sys.exit(_stream_main())
