"""What the whole-process scripts (e2e.py, mqtt-fleet.py, dashboard-browser.py, bench-daemon.py, bench-ride.py) need around the daemon they run."""
import json, signal, socket, subprocess, threading, time


class MetricsReader(threading.Thread):
    """A metrics-socket reader keeping every message with its arrival time (time.monotonic());
    it connects again whenever the daemon restarts. `strict`: a line that is not JSON ends the
    script with that prefix's failure line; otherwise the connection is dropped and made again."""

    def __init__(self, path, strict=None):
        super().__init__(daemon=True)
        self.path, self.strict, self.stopped = path, strict, False
        self.timed, self.lock, self.connections = [], threading.Lock(), 0

    def run(self):
        while not self.stopped:
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(self.path)
            except OSError:
                time.sleep(0.05)
                continue
            self.connections += 1
            with sock, sock.makefile("r", encoding="utf-8") as lines:
                try:
                    for line in lines:
                        try:
                            message = json.loads(line)
                        except ValueError:
                            if self.strict:
                                raise SystemExit(f"{self.strict}: FAIL: the metrics socket sent a line that is not JSON: {line!r}")
                            break
                        with self.lock:
                            self.timed.append((time.monotonic(), message))
                except OSError:
                    pass
            time.sleep(0.05)

    @property
    def messages(self):
        with self.lock:
            return [m for _, m in self.timed]

    def count(self):
        with self.lock:
            return len(self.timed)

    def of(self, kind, machine=None, since=0):
        """Messages of `kind` (of `machine`), from the `since`-th message received on."""
        with self.lock:
            return [m for _, m in self.timed[since:] if m.get("type") == kind and machine in (None, m.get("machine"))]

    def timed_of(self, kind, machine=None, after=0.0):
        """(arrival, message) pairs of `kind` (of `machine`) that arrived at or after `after`."""
        with self.lock:
            return [(t, m) for t, m in self.timed if t >= after and m.get("type") == kind and machine in (None, m.get("machine"))]


class NotifySocket:
    """systemd's side of Type=notify: a datagram socket standing in for NOTIFY_SOCKET.

    A thread reads it all the time, as systemd does: the kernel queues only a few datagrams
    (net.unix.max_dgram_qlen), and the daemon sends without waiting, so an unread socket would
    lose pings rather than stall the daemon."""

    def __init__(self, path):
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(path)
        self._lock = threading.Lock()
        self._lines = []
        self._last = time.monotonic()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                message = self._sock.recv(4096).decode(errors="replace")
            except OSError:
                return
            with self._lock:
                self._lines.extend(line for line in message.split("\n") if line)
                self._last = time.monotonic()

    def lines(self, settle=0.0):
        """Every state line so far, in order; with `settle`, once nothing has come for that long."""
        while settle and time.monotonic() - self._last < settle:
            time.sleep(settle / 4)
        with self._lock:
            return list(self._lines)

    def count(self, line):
        return self.lines().count(line)

    def close(self):
        self._sock.close()


def stop_processes(processes, timeout):
    """SIGTERM to every process still running, then SIGKILL to any not gone within `timeout` s."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()


class Failure(Exception):
    """A check of a whole-process scenario failed; the message says which."""


def wait_for(what, predicate, timeout, interval=0.1):
    """The predicate's first truthy value, polled until `timeout` seconds; Failure past it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise Failure(f"timed out after {timeout} s waiting for {what}")


def percentile(values, fraction):
    """The value at `fraction` (0.5 for the median) of the sorted values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def daemon_config(sections, extra=""):
    """The text of a daemon config.toml: `sections` maps a table name to its keys (str, bool,
    int, float, or a list of them), in order; Prometheus is off unless a section says otherwise (a test's daemon
    must not take the host's port 9464). `extra` is appended as it is (a broker's [mqtt])."""
    sections = {"prometheus": {"enabled": False}, **sections}

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(item) for item in v) + "]"
        return json.dumps(str(v))  # a TOML basic string: JSON's escapes are TOML's

    text = "\n".join(f"[{name}]\n" + "".join(f"{key} = {value(v)}\n" for key, v in keys.items())
                     for name, keys in sections.items())
    return text + ("\n" + extra if extra else "")
