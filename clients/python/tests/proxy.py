"""A small TCP proxy of the tests' own, in front of a real Redis: it counts the commands
clients send (RESP arrays, a connection's HELLO too), so a test can tell how many calls
reached the server, even while the server is stopped (SIGSTOP) or gone (its port closed)."""

import socket
import threading

from kit.server import free_port


class CountingProxy:
    """Listens on a free loopback port (`port`) and forwards each connection to `target_port`;
    `count` is how many commands have come from clients (counted as read, whether or not the
    server could take them)."""

    def __init__(self, target_port):
        self.target_port = target_port
        self._count = 0
        self._connections = 0
        self._lock = threading.Lock()
        self._sockets = []
        self._listener = socket.create_server(("127.0.0.1", free_port()))
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def count(self):
        with self._lock:
            return self._count

    @property
    def connections(self):
        """How many connections clients have opened to the proxy."""
        with self._lock:
            return self._connections

    def close(self):
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
        self._thread.join(5)

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        with self._lock:
            self._sockets.append(client)
            self._connections += 1
        try:
            server = socket.create_connection(("127.0.0.1", self.target_port))
        except OSError:  # the server is gone: count what the client sends, then close
            self._pump(client, None)
            return
        with self._lock:
            self._sockets.append(server)
        threading.Thread(target=self._pump, args=(server, client), daemon=True).start()
        self._pump(client, server)

    def _pump(self, source, sink):
        """Copies source to sink (None: drops it), counting the needle when the source is a
        client; ends both on either side's end."""
        counting = sink is None or sink.getpeername()[1] == self.target_port
        pending = b""
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if counting:
                    complete, pending = commands_in(pending + data)
                    with self._lock:
                        self._count += complete
                if sink is None:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                if s is not None:
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


def commands_in(data):
    """How many whole commands (`*<n>` then n bulk strings) `data` starts with, and the rest."""
    count = 0
    while True:
        end = _command_end(data)
        if end is None:
            return count, data
        count, data = count + 1, data[end:]


def _command_end(data):
    line = data.find(b"\r\n")
    if line < 0:
        return None
    at = line + 2
    for _ in range(int(data[1:line])):
        line = data.find(b"\r\n", at)
        if line < 0:
            return None
        at = line + 2 + int(data[at + 1:line]) + 2
        if at > len(data):
            return None
    return at
