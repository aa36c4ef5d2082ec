#!/usr/bin/env python3
"""The dashboard under a full gym: 40 machines at 4 Hz and 20 open browsers.

A stand-in gateway (this script) serves the metrics socket protocol (docs/metrics-socket.md): a
hello with 40 machines, then a sample for each machine every 250 ms, each stamped with its
publish time. `ftms-bridge dashboard` reads it; 20 clients hold /events open and read every
event, a 21st never reads at all (a stuck browser). After a warm-up the script reports the
dashboard's RSS and CPU, and the latency from publish to a client receiving the tile
(p50/p99, one clock), and checks the stuck client slowed nobody.

    scripts/bench-dashboard.py [--bin .build/release] [--seconds 30] [--machines 40] [--clients 20]
"""
import argparse, json, os, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def envelope(kind, machine, seq, payload):
    return json.dumps({"type": kind, "machine": machine, "sessionId": None, "timestamp": round(time.time(), 3),
                       "seq": seq, "version": "1.0", "payload": payload}, separators=(",", ":")) + "\n"


class Gateway:
    def __init__(self, path, machines):
        self.names = [f"SF-{'Bike' if i % 2 == 0 else 'Rower'}-{i // 2 + 1:04d}" for i in range(machines)]
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(4)
        self.seq = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        connection, _ = self.server.accept()
        machines = [json.loads(envelope("machine", n, i + 1, {"state": "ready", "name": n, "address": f"C0:5F:00:00:00:{i:02X}",
                                                             "type": "bike" if "Bike" in n else "rower"})) for i, n in enumerate(self.names)]
        self.seq = len(self.names)
        connection.sendall(envelope("hello", None, self.seq, {"daemonVersion": "bench", "lastSeq": self.seq, "machines": machines,
                                                              "sessions": [], "watch": {"machines": [], "types": []}}).encode())
        tick = 0
        start = time.monotonic()
        while True:
            tick += 1
            lines = []
            for i, name in enumerate(self.names):
                self.seq += 1
                power = 120 + (tick + i * 7) % 80
                lines.append(envelope("sample", name, self.seq, {
                    "characteristic": "indoor_bike_data", "instantaneous_speed_kmh": 30.0, "instantaneous_cadence_rpm": 80,
                    "instantaneous_power_w": power, "total_distance_m": tick * 2, "total_energy_kcal": tick // 20, "heart_rate_bpm": 130}))
            connection.sendall("".join(lines).encode())
            time.sleep(max(0, start + tick * 0.25 - time.monotonic()))


class Client:
    def __init__(self, port, read=True):
        self.sock = socket.create_connection(("127.0.0.1", port))
        if not read:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        self.latencies, self.events, self.measuring = [], 0, False
        if read:
            threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        buffer = b""
        while True:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return
            now = time.time()
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data: {\"point\"") or line.startswith(b"data: {\"tile\""):
                        self.events += 1
                        if self.measuring:
                            updated = json.loads(line[6:])["tile"]["updated"]
                            self.latencies.append((now - updated) * 1000)


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--machines", type=int, default=40)
    parser.add_argument("--clients", type=int, default=20)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="dash-bench.")
    path = os.path.join(work, "metrics.sock")
    gateway = Gateway(path, args.machines)
    dashboard = subprocess.Popen([os.path.join(args.bin, "ftms-bridge"), "dashboard", "--listen", "127.0.0.1:0", "--socket", path, "--gateway", "bench"],
                                 stdout=subprocess.PIPE, stderr=open(os.path.join(work, "dashboard.log"), "w"), text=True)
    try:
        url = dashboard.stdout.readline().split()[1]
        port = int(url.rsplit(":", 1)[1].strip("/"))
        idle_rss = rss_kb(dashboard.pid)
        clients = [Client(port) for _ in range(args.clients)]
        stuck = Client(port, read=False)
        time.sleep(5)
        for client in clients:
            client.measuring = True
        cpu0, t0 = cpu_seconds(dashboard.pid), time.monotonic()
        time.sleep(args.seconds)
        cpu = (cpu_seconds(dashboard.pid) - cpu0) / (time.monotonic() - t0) * 100
        rss = rss_kb(dashboard.pid)
        latencies = [x for c in clients for x in c.latencies]
        rate = args.machines * 4
        expected = rate * args.seconds * 0.9
        slow = [c.events for c in clients if len(c.latencies) < expected]
        print(f"bench-dashboard: {args.machines} machines at 4 Hz ({rate} samples/s), {args.clients} reading clients + 1 stuck, {args.seconds:.0f} s")
        print(f"bench-dashboard: RSS {rss / 1024:.1f} MB (at start {idle_rss / 1024:.1f} MB), CPU {cpu:.1f}% of one core")
        print(f"bench-dashboard: publish-to-client latency over {len(latencies)} events: p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} ms")
        print(f"bench-dashboard: every reading client got >= 90% of the samples: {'yes' if not slow else 'no: ' + str(slow)}")
        return 0 if not slow else 1
    finally:
        dashboard.terminate()
        dashboard.wait(10)


if __name__ == "__main__":
    sys.exit(main())
