
# ---- file transport (remote terminal backends) ----
# Appended after the generated functions when the script runs on a remote backend, which
# cannot reach the gateway's socket: this `_call` replaces the socket one. Each request is
# written to $HERMES_RPC_DIR/rpc/req_NNNNNN (a temporary name, then renamed); the gateway
# polls for it through the backend and answers with res_NNNNNN the same way. When the
# backend forwarded the gateway's socket (HERMES_RPC_SOCKET is set), the socket `_call` stays.
import os as _ft_os
import threading as _ft_threading

_ft_lock = _ft_threading.Lock()
_ft_state = {"pid": None, "seq": 0, "token": None}


def _ft_next_seq():
    with _ft_lock:
        pid = _ft_os.getpid()
        if _ft_state["pid"] != pid:
            if _ft_state["pid"] is not None:
                # A forked child: a range of its own, so its numbers do not repeat its parent's.
                _ft_state["seq"] = (pid % 9000 + 1000) * 1000
            _ft_state["pid"] = pid
        _ft_state["seq"] += 1
        return _ft_state["seq"]


def _ft_call(tool, args):
    """Runs a gateway tool through request/response files and returns its result."""
    try:
        folder = _ft_os.environ.get("HERMES_RPC_DIR")
        if not folder:
            raise RuntimeError("HERMES_RPC_DIR is not set; run this script through execute_code")
        if _ft_state["token"] is None:
            with open(_ft_os.path.join(folder, "token"), "r") as handle:
                _ft_state["token"] = handle.read().strip()
        rpc = _ft_os.path.join(folder, "rpc")
        seq = _ft_next_seq()
        name = "%06d" % seq
        body = _json.dumps({"id": seq, "tool": tool, "args": {k: v for k, v in args.items() if v is not None},
                            "token": _ft_state["token"]}, ensure_ascii=False, default=str).encode("utf-8")
        temp = _ft_os.path.join(rpc, ".tmp_req_" + name)
        fd = _ft_os.open(temp, _ft_os.O_WRONLY | _ft_os.O_CREAT | _ft_os.O_EXCL, 0o600)
        try:
            view = memoryview(body)
            while view:
                view = view[_ft_os.write(fd, view):]
        finally:
            _ft_os.close(fd)
        _ft_os.rename(temp, _ft_os.path.join(rpc, "req_" + name))
        answer = _ft_os.path.join(rpc, "res_" + name)
        delay = 0.0005
        while True:
            try:
                with open(answer, "rb") as handle:
                    data = handle.read()
                break
            except FileNotFoundError:
                _time.sleep(delay)
                delay = min(delay * 1.5, 0.01)
        try:
            _ft_os.unlink(answer)
        except OSError:
            pass
        message = _json.loads(data.decode("utf-8"))
        return message["result"] if "result" in message else {"error": message.get("error", "unknown RPC error")}
    except (OSError, ValueError, RuntimeError) as exc:
        return {"error": "hermes_tools: RPC to the gateway failed: %s" % (exc,)}


# With a direct channel (SSH forwarded the gateway's socket here) the socket transport stays.
if not _ft_os.environ.get("HERMES_RPC_SOCKET"):
    _call = _ft_call
