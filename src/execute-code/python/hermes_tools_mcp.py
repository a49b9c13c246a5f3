# ---- mcp: the MCP servers enabled for scripts (mcp_servers.<name>.scripts: true) ----
class _Mcp(object):
    """Tools of the gateway's MCP servers. Each call counts in the script's tool-call budget."""

    def call(self, server, tool, /, **arguments):
        """Calls `tool` of MCP `server` with keyword arguments. Returns the MCP result
        ({"content": [{"type": "text", "text": ...}, ...], "structuredContent": ...}); a failure,
        a server that is down or not enabled for scripts, comes back as {"error": "..."}."""
        return _call("mcp", {"op": "call", "server": server, "tool": tool, "arguments": arguments})

    def tools(self, server=None):
        """The tools scripts may call: a list of {"server", "name", "model_name", "description",
        "input_schema"}, of one server or of all; {"error": "..."} when that is not possible."""
        return _call("mcp", {"op": "tools", "server": server})


mcp = _Mcp()
