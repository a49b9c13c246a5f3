# ---- remote_stream_runner.py, part 1: frames out and the RPC relay ----
# The stream runner is sent as remote_sweep.py, this file, then remote_stream_runner.py (its
# docstring is the reference for the protocol). _Relay is the runner's half that carries a
# script's RPC connections: each connection to FOLDER/rpc.sock gets an id, its bytes go out
# as D frames, the gateway's answers come back the same way. Stdlib only, Python >= 3.8.

import os as _os
import selectors as _selectors
import struct as _struct

_CHUNK = 64 * 1024
# Answers a connection has not read; past this its requests are not read either.
_MAX_BACKLOG = 1024 * 1024


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[_os.write(fd, view):]


def _flush(sock, buf):
    """Sends what of `buf` the non-blocking `sock` takes now; False when the socket failed."""
    try:
        sent = sock.send(buf)
        del buf[:sent]
    except BlockingIOError:
        pass
    except OSError:
        return False
    return True


class _Gone(Exception):
    """The gateway's end of the stream is gone."""


class _Conn(object):
    __slots__ = ("ident", "sock", "out", "closing", "reading")

    def __init__(self, ident, sock):
        self.ident = ident
        self.sock = sock
        self.out = bytearray()
        self.closing = False
        self.reading = True


class _Relay(object):
    """The RPC connections of the child; the runner gives it `sel`, `listener`, `send`."""

    def __init__(self):
        self.conns = {}
        self.next_id = 0
        self.max_conns = 64

    def on_accept(self):
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        if len(self.conns) >= self.max_conns:
            sock.close()  # the gateway would refuse it too; past its cap we do not even ask
            return
        sock.setblocking(False)
        self.next_id += 1
        ident = self.next_id
        self.conns[ident] = _Conn(ident, sock)
        self.sel.register(sock, _selectors.EVENT_READ, ident)
        self.send(b"N", _struct.pack(">I", ident))

    def on_conn(self, ident, mask):
        conn = self.conns.get(ident)
        if conn is None:
            return
        if mask & _selectors.EVENT_READ and conn.reading:
            try:
                data = conn.sock.recv(_CHUNK)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data == b"":
                self.drop(ident, tell=True)
                return
            if data:
                self.send(b"D", _struct.pack(">I", ident) + data)
        if mask & _selectors.EVENT_WRITE:
            self.update_conn(conn)

    def on_conn_frame(self, kind, payload):
        """A D (bytes for a connection) or F (the gateway closed it) frame."""
        ident = _struct.unpack(">I", payload[:4])[0]
        conn = self.conns.get(ident)
        if conn is None:
            return
        if kind == b"D":
            if not conn.closing:
                conn.out += payload[4:]
                self.update_conn(conn)
        else:
            conn.closing = True
            self.update_conn(conn)

    def update_conn(self, conn):
        ident = conn.ident
        if self.conns.get(ident) is not conn:
            return
        if conn.out and not _flush(conn.sock, conn.out):
            self.drop(ident, tell=True)
            return
        if conn.closing and not conn.out:
            self.drop(ident, tell=False)
            return
        # A script that leaves its answers unread is not read either (as the gateway's own server does).
        conn.reading = len(conn.out) <= _MAX_BACKLOG and not conn.closing
        events = (_selectors.EVENT_READ if conn.reading else 0) | (_selectors.EVENT_WRITE if conn.out else 0)
        self.sel.modify(conn.sock, events or _selectors.EVENT_WRITE, ident)

    def drop(self, ident, tell):
        conn = self.conns.pop(ident, None)
        if conn is None:
            return
        try:
            self.sel.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()
        if tell:
            self.send(b"F", _struct.pack(">I", ident))
