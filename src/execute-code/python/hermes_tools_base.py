"""hermes_tools: call hermes-gateway's tools from an execute_code script.

Generated for one execution; do not edit. Every function returns the tool's result as a
dict; a tool's failure arrives as {"error": "..."}, not as an exception. The transport is
newline-delimited JSON over HERMES_RPC_SOCKET (a Unix socket path, or tcp://host:port).
"""
import json as _json
import os as _os
import socket as _socket
import sys as _sys
import threading as _threading
import time as _time

__all__ = ["json_parse", "shell_quote", "retry"]


class _Slot(object):
    # The event is made only when a second thread has to wait: most calls never need one.
    __slots__ = ("event", "result", "done")

    def __init__(self):
        self.event = None
        self.result = None
        self.done = False


_encode = _json.JSONEncoder(ensure_ascii=False, default=str, separators=(",", ":")).encode


class _Connection(object):
    """One connection per process, shared by all threads; responses are matched by id.

    Whoever waits reads: the thread holding the read lock reads frames and hands other
    threads their answers, so a single-threaded script never pays for a thread switch.
    """

    def __init__(self, address, token):
        if address.startswith("tcp://"):
            host, _, port = address[len("tcp://"):].rpartition(":")
            sock = _socket.create_connection((host, int(port)))
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        else:
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            sock.connect(address)
        sock = _off_std_fds(sock)
        self.pid = _os.getpid()
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.token = token
        self.pending = {}
        self.next_id = 0
        self.state_lock = _threading.Lock()
        self.send_lock = _threading.Lock()
        self.read_lock = _threading.Lock()
        self.broken = None

    def call(self, tool, args):
        with self.state_lock:
            self.next_id += 1
            call_id = self.next_id
            slot = self.pending[call_id] = _Slot()
        data = (_encode({"id": call_id, "tool": tool, "args": args, "token": self.token}) + "\n").encode("utf-8")
        with self.send_lock:
            try:
                self.sock.sendall(data)
            except OSError:
                self._refused()
                raise
        while not slot.done:
            if self.read_lock.acquire(False):
                try:
                    while not slot.done:
                        self._read_one()
                finally:
                    self.read_lock.release()
            else:
                if slot.event is None:
                    slot.event = _threading.Event()
                if not slot.done:
                    slot.event.wait(0.002)
        return slot.result

    def _refused(self):
        # The gateway may have refused the connection (one JSON line, then closed): say why.
        try:
            message = _json.loads(self.reader.readline() or b"{}")
        except (OSError, ValueError):
            return
        if isinstance(message, dict) and "error" in message and "id" not in message:
            self.broken = "hermes_tools: " + str(message["error"])
            raise ConnectionError(message["error"])

    def _read_one(self):
        if self.broken is not None:
            raise ConnectionError(self.broken)
        line = self.reader.readline()
        message = _json.loads(line) if line else {}
        if not line or ("id" not in message and "error" in message):
            # Without an id the gateway speaks of the connection: it refused it, or is closing it.
            self.broken = "hermes_tools: " + str(message.get("error", "the gateway closed the RPC connection"))
            with self.state_lock:
                slots = list(self.pending.values())
                self.pending.clear()
            for slot in slots:
                slot.result = {"error": self.broken}
                slot.done = True
                if slot.event is not None:
                    slot.event.set()
            return
        with self.state_lock:
            slot = self.pending.pop(message.get("id"), None)
        if slot is None:
            return
        slot.result = message["result"] if "result" in message else {"error": message.get("error", "unknown RPC error")}
        slot.done = True
        if slot.event is not None:
            slot.event.set()


def _off_std_fds(sock):
    # After a cell closed fd 1 or 2 the socket may land on it, and the kernel puts its output
    # pipes back on 1 and 2 after every cell: keep the connection on a descriptor above them.
    if sock.fileno() > 2:
        return sock
    try:
        import fcntl

        fd = fcntl.fcntl(sock.fileno(), fcntl.F_DUPFD_CLOEXEC, 3)
    except (ImportError, OSError, AttributeError):
        return sock
    moved = _socket.socket(sock.family, sock.type, sock.proto, fileno=fd)
    sock.close()
    return moved


_connection = None
_connection_lock = _threading.Lock()


def _conn():
    global _connection
    conn = _connection
    if conn is not None and conn.pid == _os.getpid() and conn.broken is None:
        return conn
    with _connection_lock:
        if _connection is None or _connection.pid != _os.getpid() or _connection.broken is not None:
            address = _os.environ.get("HERMES_RPC_SOCKET")
            if not address:
                raise RuntimeError("hermes_tools: HERMES_RPC_SOCKET is not set; run this script through execute_code")
            _connection = _Connection(address, _os.environ.get("HERMES_RPC_TOKEN", ""))
        return _connection


def _call(tool, args):
    """Runs a gateway tool and returns its result (a dict; errors as {"error": ...})."""
    try:
        return _conn().call(tool, {k: v for k, v in args.items() if v is not None})
    except (OSError, ConnectionError, ValueError) as exc:
        return {"error": "hermes_tools: RPC to the gateway failed: %s" % (exc,)}


def json_parse(text):
    """json.loads(strict=False): raw tabs and newlines inside strings are accepted, as tools
    often print them; a UTF-8 byte order mark and bytes input are tolerated."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8-sig")
    elif text.startswith("\ufeff"):
        text = text[1:]
    return _json.loads(text, strict=False)


def shell_quote(s):
    """Quotes a string for a POSIX shell (shlex.quote)."""
    import shlex
    return shlex.quote(str(s))


def retry(fn, max_attempts=3, delay=2):
    """Calls fn() until it neither raises nor returns a dict with "error"; waits `delay`
    seconds between attempts (doubling). Returns the last result or re-raises."""
    result = None
    for attempt in range(1, max_attempts + 1):
        try:
            result = fn()
        except Exception:
            if attempt == max_attempts:
                raise
        else:
            if not (isinstance(result, dict) and "error" in result):
                return result
        if attempt < max_attempts:
            _time.sleep(delay * (2 ** (attempt - 1)))
    return result


def _importing_from():
    """True when the caller of __getattr__ is running `from hermes_tools import name`."""
    try:
        import opcode

        frame = _sys._getframe(2)
        return frame.f_code.co_code[frame.f_lasti] == opcode.opmap["IMPORT_FROM"]
    except Exception:
        return True


def __getattr__(name):
    # `from hermes_tools import vision_analyze` must say what can be imported. The import
    # statement replaces an AttributeError with its own bare ImportError, so there this raises
    # the ImportError itself; plain attribute access (hasattr, getattr with a default) keeps
    # AttributeError, and dunder lookups by the import machinery get a plain one.
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    message = "cannot import name %r from hermes_tools: it is not available in execute_code here. You can import: %s" % (
        name,
        ", ".join(list(_AVAILABLE) + ["json_parse", "shell_quote", "retry"]),
    )
    if _importing_from():
        raise ImportError(message, name="hermes_tools")
    raise AttributeError(message)

# ---- generated tool functions follow ----
