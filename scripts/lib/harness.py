"""What the whole-process scripts (e2e.py, mqtt-fleet.py, dashboard-browser.py, bench-daemon.py) need around the daemon they run."""
import signal, socket, subprocess, threading, time


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
