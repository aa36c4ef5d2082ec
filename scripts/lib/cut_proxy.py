"""A loopback TCP proxy that can cut a gateway off from its broker, for scripts/floor-deaths.py.

Point one gateway's `[mqtt] broker` at `CutProxy.port`; both its MQTT connections (the metrics
one and the floor's) then go through it to the broker. `cut("close")` closes both ends of every
connection and refuses new ones (the broker sees the disconnect and publishes the last will at
once); `cut("blackhole")` stops forwarding but keeps every socket open, and new connections get
no answer (as a pulled cable or a dead switch: the broker's keepalive finds it, after about 1.5
times the keepalive, and so does the gateway's). `restore()` closes what the cut left hanging
(neither end would ever hear from the other again) and forwards new connections again."""
import select, socket, threading, time


class CutProxy:
    def __init__(self, target_port, host="127.0.0.1"):
        self.target = (host, target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.mode = "forward"
        self.lock = threading.Lock()
        self.pairs = []  # [client, upstream or None, held]
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return f"mqtt://{self.target[0]}:{self.port}"

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                mode = self.mode
                self.accepted += 1
            if mode == "close":
                self._shut(client)
                continue
            if mode == "blackhole":
                with self.lock:
                    self.pairs.append([client, None, True])
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                self._shut(client)
                continue
            pair = [client, upstream, False]
            with self.lock:
                self.pairs.append(pair)
            threading.Thread(target=self._pump, args=(pair,), daemon=True).start()

    def _pump(self, pair):
        client, upstream = pair[0], pair[1]
        try:
            while True:
                with self.lock:
                    held = pair[2]
                if held:
                    # Blackholed: nothing read, nothing written; the kernel buffers fill as
                    # a partitioned network's would. `restore` closes both ends.
                    time.sleep(0.05)
                    continue
                ready, _, _ = select.select([client, upstream], [], [], 0.2)
                for source in ready:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is client else client).sendall(data)
        except (OSError, ValueError):
            pass
        finally:
            self._drop(pair)

    def _drop(self, pair):
        with self.lock:
            if pair in self.pairs:
                self.pairs.remove(pair)
        for sock in pair[:2]:
            if sock is not None:
                self._shut(sock)

    @staticmethod
    def _shut(sock):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def cut(self, how):
        """`close` or `blackhole`, as the module says."""
        if how not in ("close", "blackhole"):
            raise ValueError(how)
        with self.lock:
            self.mode = how
            pairs = list(self.pairs)
            for pair in pairs:
                pair[2] = True
        if how == "close":
            for pair in pairs:
                self._drop(pair)

    def restore(self):
        with self.lock:
            self.mode = "forward"
            hanging = [pair for pair in self.pairs if pair[2]]
        for pair in hanging:
            self._drop(pair)

    def close(self):
        self.listener.close()
        self.restore()
