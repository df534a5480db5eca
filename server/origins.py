"""Which browser origins may open a WebSocket session: the rule MCP's transport applies.

A server bound to loopback is reachable from any web page the machine's browser opens (DNS
rebinding, or a page that simply connects to 127.0.0.1). MCP's SDK refuses such cross-origin
requests there (server/mcp_server.py); /ws now does the same: on a loopback bind, a handshake
that sends an Origin must come from a loopback origin. Clients that are not browsers send no
Origin and are unaffected; a server bound elsewhere is meant to be reached from elsewhere.
"""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def origin_allowed(origin: str | None, bind_host: str) -> bool:
    if origin is None or bind_host not in LOOPBACK_HOSTS:
        return True
    try:
        parts = urlsplit(origin)
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme == "http" and host in LOOPBACK_HOSTS  # MCP allows http://<loopback>:*
