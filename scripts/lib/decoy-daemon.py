#!/usr/bin/env python3
"""A decoy where the daemon's sockets are by default, for scripts/lib/host-decoys.sh.

    decoy-daemon.py DIRECTORY LOG READY

Listens on DIRECTORY/control.sock and DIRECTORY/metrics.sock, answers every connection with
an error that no test expects (the control socket with `unavailable`, the metrics socket with
no hello), and appends one line per connection to LOG: which socket, and what the peer sent
within a second. Writes READY once both sockets listen. A test that asks the host's daemon
instead of its own therefore fails, and the log names what it sent.
"""
import os
import socket
import sys
import threading
import time

CONTROL_ANSWER = (b'{"ok":false,"error":"decoy at the host\'s default control socket: '
                  b'a test must pass its own --control-socket or --standalone","code":"unavailable"}\n')
METRICS_GREETING = (b'{"type":"error","error":"decoy at the host\'s default metrics socket: '
                    b'a test must pass its own --socket"}\n')

log_lock = threading.Lock()


def log(path, line):
    with log_lock, open(path, "a", encoding="utf-8") as file:
        file.write(f"{time.strftime('%H:%M:%S')} {line}\n")


def serve(connection, name, log_path):
    with connection:
        if name == "metrics.sock":
            try:
                connection.sendall(METRICS_GREETING)
            except OSError:
                pass
        connection.settimeout(1.0)
        received = b""
        try:
            while b"\n" not in received and len(received) < 4096:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                received += chunk
        except OSError:
            pass
        log(log_path, f"{name}: a connection sent {received[:300]!r}")
        if name == "control.sock":
            try:
                connection.sendall(CONTROL_ANSWER)
            except OSError:
                pass


def listen(directory, name, log_path):
    path = os.path.join(directory, name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o666)
    listener.listen(64)

    def accept_forever():
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection, name, log_path), daemon=True).start()

    threading.Thread(target=accept_forever, daemon=True).start()


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: decoy-daemon.py DIRECTORY LOG READY")
    directory, log_path, ready_path = sys.argv[1:]
    for name in ("control.sock", "metrics.sock"):
        listen(directory, name, log_path)
    with open(ready_path, "w", encoding="utf-8") as ready:
        ready.write(f"{os.getpid()}\n")
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
