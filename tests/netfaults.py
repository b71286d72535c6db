"""Misbehaving HTTP peers on 127.0.0.1, built on plain sockets (pytest-httpserver answers too
well)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def raw_server(reply: bytes | None) -> Iterator[str]:
    """Accept connections; send `reply` then close, or (None) hold them open and say nothing."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with contextlib.suppress(OSError):
                conn.recv(65536)
                if reply is None:
                    held.append(conn)
                    continue
                conn.sendall(reply)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/lm-arena-chat.json"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
        for conn in held:
            conn.close()


def closed_port_url() -> str:
    """A loopback URL on which nothing listens."""
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/lm-arena-chat.json"
