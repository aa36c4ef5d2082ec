#!/usr/bin/env python3
"""What one notification costs, StartNotify against AcquireNotify (the CPU bars of docs/performance.md).

For each path, REPEAT times: a private dbus-daemon, ftms-sim with N machines (default 10: 5 bikes,
5 rowers) at RATE Hz (default 4), and `ftms-bridge run` as bench-daemon.py runs it (NOTIFY_SOCKET,
watchdog, Prometheus on). After the warm-up, for DURATION seconds: CPU of the daemon, the
dbus-daemon and the simulator in nanoseconds (every thread's /proc/PID/task/TID/schedstat, not
/proc/PID/stat's 10 ms ticks, which are too coarse for a bar of 0.025 % of a core), their
wake-ups (voluntary context switches, summed over threads) per notification, the daemon's CPU
and wake-ups per thread, and its anonymous memory (RssAnon, what it cannot give back; sampled
every 5 s: max, first, last). `start` runs the
simulator with --no-acquire-notify, so every notification is a PropertiesChanged through the
dbus-daemon; `acquire` lets the daemon acquire the data and status characteristics. The runs of
the two paths alternate (start 1, acquire 1, start 2, ...), so each AcquireNotify run is compared
with the dbus-daemon of the StartNotify run next to it, made under the same load.

The floor beside every run: while the daemon is measured, a bare C reader
(scripts/lib/acquire-floor.c, compiled with gcc into the work directory) receives the same
datagrams, as many machines at the same rate, each at its own phase as ftms-sim's machines are,
of a data frame's size, on SOCK_SEQPACKET socketpairs: epoll_wait, recv, and a 300-byte write per
datagram to a connected Unix-socket reader, which is what any gateway must do. Its CPU per
notification, measured over the same seconds on the same box, is the floor the daemon's is
divided by (the ratio). --no-floor leaves it out.

--nio-floor PATH (the nio-floor of the Benchmarks package: `(cd Benchmarks && swift build -c release
--product nio-floor)`, then Benchmarks/.build/release/nio-floor) also runs, over the same seconds,
two floors built with the framework the daemon must use and nothing of ours, each through
acquire-floor's --reader-exec on datagrams of its own: the NIO floor (one event loop, a
NIOPipeBootstrap channel per socket, a writeAndFlush per datagram) and the NIO+job floor (the same,
each datagram yielded into an AsyncStream and written from one task, NIO's loop being Swift
Concurrency's executor, as in the daemon). Their µs per notification and the daemon's ratio to
each are reported, not held to a bar: they say how much of the daemon's cost is the framework's.

--silent S runs each path with the machines connected and silent (--rate 0: nothing arriving)
for S seconds in every repeat: the daemon's fixed cost. Per-notification cost is then also
given as (riding - silent) / notifications, separated from what the daemon spends with nothing
arriving.

--ride is the held-out ride: AcquireNotify only, sessions open on every machine (checked over
the control socket after the warm-up), checkpoints every 5 s (`sessions.checkpoint_interval`),
and a reader on the metrics socket draining every line, as the floor's reader does; the
simulator's machines notify evenly spread over a frame interval (ftms-sim --spread-phases), as
the floor's timers are, so both see the same timing and runs compare (each machine's phase from
its own link's start bunches the frames differently every run, and the daemon's wake-ups with
them; --bunched keeps that); --silent defaults to 30. It reports, as medians over the
repeats: the floor's µs per notification, the daemon's, their ratio (bar <= 2), the ride's % of
a core, the fixed cost (bar < 0.05 % of a core) and the largest RssAnon (bar <= 8 MB).

  scripts/bench-notify.py [--bin .build/release] [--sim PATH] [--paths start,acquire] [--repeat 3]
                          [--duration 60] [--warmup 20] [--silent 30] [--no-floor] [--nio-floor PATH]
                          [--ride [--bunched]]
                          [--perf DIR [--perf-frequency 20000]]
--perf DIR records `perf record -g` of the daemon over each first run into DIR/PATH.data.

Prints one line per run, then medians and the ratios the bars are about:
  start:   daemon CPU / dbus-daemon CPU (bar <= 1)
  acquire: daemon CPU / dbus-daemon CPU *with StartNotify* (bar < 0.25)
  floor:   daemon µs per notification / the bare reader's in the same run (reported; a bar with --ride)
Exit status 1 if a bar is missed. The machine may be shared: quote medians, run it twice.
"""
import argparse, importlib.util, os, re, socket, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The daemon, simulator and bus are started exactly as bench-daemon.py starts them.
_spec = importlib.util.spec_from_file_location("bench_daemon", os.path.join(ROOT, "scripts", "bench-daemon.py"))
bench_daemon = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_daemon)


# The ride's sessions: checkpoints every 5 s (the default, written out so the figure says it).
RIDE_SESSIONS = {"checkpoint_interval": 5}
# The floor's line: as long as the daemon's sample lines on the metrics socket.
FLOOR_LINE_BYTES = 300


def build_floor(work):
    """Compiles the bare reader into the work directory; its path."""
    binary = os.path.join(work, "acquire-floor")
    subprocess.run(["gcc", "-O2", "-o", binary, os.path.join(ROOT, "scripts", "lib", "acquire-floor.c")], check=True)
    return binary


def floor_readers(args):
    """{name: the reader acquire-floor runs in its place (None: its own)}: the bare reader, and with
    --nio-floor the NIO floor and the NIO+job floor, in the order they are reported."""
    readers = {"bare reader": None}
    if args.nio_floor:
        readers["NIO floor"] = [args.nio_floor]
        readers["NIO+job floor"] = [args.nio_floor, "--job"]
    return readers


def start_floor(binary, args, seconds, reader=None):
    """The bare reader (or `reader`, through --reader-exec) over `seconds` after its own 2 s
    warm-up (start it 2 s before the window)."""
    return subprocess.Popen([binary, "--machines", str(args.machines), "--rate", str(int(args.rate)), "--duration", str(seconds),
                             "--spread", "--publish", "--line-bytes", str(FLOOR_LINE_BYTES)]
                            + (["--reader-exec", *reader] if reader else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def floor_result(process, name="bare reader"):
    """(µs of CPU per notification, notifications, wake-ups per notification) from a floor's line."""
    out, err = process.communicate(timeout=60)
    found = re.search(r": (\d+) notifications in .* ([\d.]+) us per notification, ([\d.]+) wake-ups per notification", out)
    if process.returncode != 0 or not found:
        raise SystemExit(f"bench-notify: the {name} failed ({process.returncode}): {out} {err}")
    return float(found.group(2)), int(found.group(1)), float(found.group(3))


class Drain(threading.Thread):
    """A metrics-socket reader that reads and drops every line, as the floor's reader does."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.received, self.stopped = path, 0, False
        self.start()

    def run(self):
        while not self.stopped:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                    conn.connect(self.path)
                    while not self.stopped:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        self.received += len(chunk)
            except OSError:
                pass
            time.sleep(0.1)


def notifications_counted(control):
    """The daemon's own count of notifications, over every machine (the control socket's `machines`)."""
    return sum(m.get("notifications", 0) for m in bench_daemon.machines(control))


def one_run(args, path, work, label, rate, duration, perf_file=None, floor=None):
    """One scenario; returns {process: (ns, wake-ups)}, the daemon's {thread: (ns, wake-ups)},
    the elapsed seconds, the daemon's RssAnon samples (KiB), the notifications the daemon counted
    over the window, and each floor's {name: (µs per notification, notifications, wake-ups per
    notification)} when `floor` (acquire-floor's binary) is given and notifications flow (else None)."""
    bus_dir, sim, daemon = bench_daemon.run_scenario(
        args, rate, work, label, sim_binary=args.sim, sim_flags=["--no-acquire-notify"] if path == "start" else
        ["--spread-phases"] if args.ride and not args.bunched else [],
        sessions=RIDE_SESSIONS if args.ride else None)
    bus_pid = int(open(os.path.join(bus_dir, "dbus-daemon.pid")).read().split()[0])
    recorder = drain = None
    readers = {}
    try:
        if args.ride:
            drain = Drain(os.path.join(work, label + "-metrics.sock"))
        time.sleep(max(0, args.warmup - 2))
        if floor and rate > 0:
            readers = {name: start_floor(floor, args, duration, reader) for name, reader in floor_readers(args).items()}
        time.sleep(min(2, args.warmup))
        if daemon.poll() is not None:
            raise SystemExit(f"bench-notify: the daemon exited {daemon.returncode}; see {work}/daemon-{label}.log")
        listed = bench_daemon.machines(daemon.control)
        ready = sum(1 for m in listed if m.get("state") == "ready")
        if ready != args.machines:
            raise SystemExit(f"bench-notify: {ready} of {args.machines} machines ready after the warm-up: the figures would not be for {args.machines}")
        if args.ride and rate > 0:
            riding = sum(1 for m in listed if m.get("session_id"))
            if riding != args.machines:
                raise SystemExit(f"bench-notify: {riding} of {args.machines} machines with a session open after the warm-up: not a ride")
        counted = notifications_counted(daemon.control)
        meters = {"daemon": bench_daemon.ThreadMeter(daemon.pid), "dbus-daemon": bench_daemon.ThreadMeter(bus_pid),
                  "sim": bench_daemon.ThreadMeter(sim.pid)}
        wall = time.monotonic()
        if perf_file:
            recorder = subprocess.Popen(["perf", "record", "-g", "-F", str(args.perf_frequency), "-p", str(daemon.pid), "-o", perf_file,
                                         "--", "sleep", str(duration)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples, next_rss = [], 0.0
        while time.monotonic() - wall < duration:
            time.sleep(min(1, max(0.05, duration - (time.monotonic() - wall))))
            for meter in meters.values():
                meter.sample()
            if time.monotonic() - wall >= next_rss:
                samples.append(bench_daemon.status_kib(daemon.pid, "RssAnon"))
                next_rss += 5
        elapsed = time.monotonic() - wall
        counted = notifications_counted(daemon.control) - counted
        samples.append(bench_daemon.status_kib(daemon.pid, "RssAnon"))
        if recorder:
            recorder.wait()
        bare = {name: floor_result(process, name) for name, process in readers.items()} or None
        readers = {}
        if drain and rate > 0 and drain.received == 0:
            raise SystemExit("bench-notify: the metrics-socket reader received nothing: not a ride")
        return {name: meter.totals() for name, meter in meters.items()}, meters["daemon"].by_thread(), elapsed, samples, counted, bare
    finally:
        for process in readers.values():
            process.kill()
            process.wait()
        if drain:
            drain.stopped = True
        bench_daemon.stop(bus_dir, daemon, sim)


def percent(ns, elapsed):
    return ns / (elapsed * 1e9) * 100


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--rate", type=float, default=4)
    parser.add_argument("--paths", default="start,acquire")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duration", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--silent", type=int, default=None, help="seconds of a connected-and-silent run per path in each repeat "
                        "(0: none; default 0, or 30 with --ride)")
    parser.add_argument("--no-floor", action="store_true", help="no bare reader beside the runs")
    parser.add_argument("--nio-floor", help="nio-floor (the Benchmarks package's): also run the NIO floor and the NIO+job "
                        "floor beside each run, through acquire-floor --reader-exec (reported, no bar)")
    parser.add_argument("--ride", action="store_true", help="the held-out ride: AcquireNotify, sessions open, checkpoints every 5 s, "
                        "a metrics-socket reader; bars on the ratio to the floor, the fixed cost and RssAnon")
    parser.add_argument("--perf")
    parser.add_argument("--perf-frequency", type=int, default=999, help="perf record -F (the daemon uses 0.2 %% of a core: "
                        "at 999 Hz a minute gives some 120 samples; 20000 gives a profile worth reading)")
    parser.add_argument("--bunched", action="store_true", help="with --ride: each machine's frames at its link's own phase, "
                        "not spread evenly (the simulator's default; an ftms-sim without --spread-phases)")
    parser.add_argument("--sim", help="the ftms-sim to use (default: the one in --bin), e.g. to bench an older daemon")
    args = parser.parse_args()
    args.broker = None  # run_scenario's MQTT option (bench-daemon.py --mqtt): this bench runs without a broker
    args.sample_rate = None
    if args.silent is None:
        args.silent = 30 if args.ride else 0
    if args.ride:
        args.paths = "acquire"
    work = tempfile.mkdtemp(prefix="ftms-bench-notify.")
    floor = None if args.no_floor else build_floor(work)
    paths = args.paths.split(",")
    nominal = args.machines * args.rate
    silent = {path: [] for path in paths}
    results = {path: [] for path in paths}
    for index in range(args.repeat):
        for path in paths:
            if args.silent > 0:
                totals, _, elapsed, samples, _, _ = one_run(args, path, work, f"{path}-silent-{index}", 0, args.silent)
                silent[path].append((percent(totals["daemon"][0], elapsed), totals["daemon"][1] / elapsed, max(samples)))
                print(f"{path} silent {index + 1} ({args.machines} connected, no notifications) for {elapsed:.0f} s: daemon "
                      f"{silent[path][-1][0]:.4f} % of one core, {silent[path][-1][1]:.2f} wake-ups/s, RssAnon max "
                      f"{max(samples) / 1024:.1f} MB", flush=True)
            perf_file = os.path.join(args.perf, f"{path}.data") if args.perf and index == 0 else None
            totals, threads, elapsed, samples, counted, bare = one_run(
                args, path, work, f"{path}-{index}", args.rate, args.duration, perf_file, floor)
            # Per notification as the daemon counted them over the window (the nominal rate if it counted none).
            arrived = counted / elapsed if counted > 0 else nominal
            cpu = {name: percent(ns, elapsed) for name, (ns, _) in totals.items()}
            woken = {name: w / elapsed / arrived for name, (_, w) in totals.items()}
            per = totals["daemon"][0] / elapsed / arrived / 1000
            results[path].append({"cpu": cpu, "woken": woken, "per": per, "floor": bare["bare reader"][0] if bare else None,
                                  "floors": {name: got[0] for name, got in bare.items()} if bare else {}, "anon": max(samples)})
            spread = ", ".join(f"{name} {percent(ns, elapsed):.3f} % {w / elapsed:.1f} w/s"
                               for name, (ns, w) in sorted(threads.items(), key=lambda item: -item[1][0]) if ns > 0)
            beside = "".join(f"; {name} {got[0]:.1f} µs ({got[1]} notifications, {got[2]:.2f} wake-ups each), ratio {per / got[0]:.2f}"
                             for name, got in bare.items()) if bare else ""
            print(f"{path} run {index + 1}: daemon {cpu['daemon']:.4f} % ({per:.1f} µs, {woken['daemon']:.2f} wake-ups per "
                  f"notification, {arrived:.1f}/s){beside}; dbus-daemon {cpu['dbus-daemon']:.4f} % ({woken['dbus-daemon']:.2f} wake-ups per "
                  f"notification), ftms-sim {cpu['sim']:.4f} % of one core; daemon RssAnon max {max(samples) / 1024:.1f} MB "
                  f"(first {samples[0] / 1024:.1f}, last {samples[-1] / 1024:.1f})\n    daemon threads: {spread}", flush=True)
    failed = False
    for path, runs in results.items():
        daemon_cpu = statistics.median(run["cpu"]["daemon"] for run in runs)
        bus_cpu = statistics.median(run["cpu"]["dbus-daemon"] for run in runs)
        woken = statistics.median(run["woken"]["daemon"] for run in runs)
        per = statistics.median(run["per"] for run in runs)
        line = (f"{path} median of {len(runs)}: daemon {daemon_cpu:.4f} %, dbus-daemon {bus_cpu:.4f} % (daemon {per:.1f} µs of CPU "
                f"and {woken:.2f} wake-ups per notification at {nominal:g}/s")
        if silent[path]:
            fixed = statistics.median(run[0] for run in silent[path])
            line += f"; {(daemon_cpu - fixed) / 100 / nominal * 1e6:.1f} µs each above the connected-and-silent {fixed:.4f} %"
        print(line + ")")
        if runs[0]["floor"] is not None:
            # Ratios within each run, the floor measured over the same seconds, then their median.
            ratios = [run["per"] / run["floor"] for run in runs]
            floor_us = statistics.median(run["floor"] for run in runs)
            print(f"{path}: daemon / bare reader = {statistics.median(ratios):.2f} (bare reader median {floor_us:.1f} µs; runs: "
                  f"{', '.join(f'{r:.2f}' for r in ratios)}){' bar <= 2' if args.ride else ''}")
            for name in list(runs[0]["floors"])[1:]:
                # The NIO floors: reported beside the bar, not held to one.
                nio = [run["per"] / run["floors"][name] for run in runs]
                print(f"{path}: daemon / {name} = {statistics.median(nio):.2f} ({name} median "
                      f"{statistics.median(run['floors'][name] for run in runs):.1f} µs; runs: {', '.join(f'{r:.2f}' for r in nio)}; no bar)")
            if args.ride:
                failed |= statistics.median(ratios) > 2
        if args.ride:
            anon = max(run["anon"] for run in runs) / 1024
            fixed = statistics.median(run[0] for run in silent[path]) if silent[path] else None
            # --no-floor: no bare reader ran, so no floor and no ratio to show.
            measured = runs[0]["floor"] is not None
            bare = f"{statistics.median(run['floor'] for run in runs):.1f} µs" if measured else "-"
            ratio = f"{statistics.median(run['per'] / run['floor'] for run in runs):.2f}" if measured else "-"
            nio = "".join(f" | {name} {statistics.median(run['floors'][name] for run in runs):.1f} µs, daemon / it "
                          f"{statistics.median(run['per'] / run['floors'][name] for run in runs):.2f}"
                          for name in (list(runs[0]["floors"])[1:] if measured else []))
            print(f"ride table, medians of {len(runs)} runs: bare reader {bare}{nio} | daemon "
                  f"{per:.1f} µs | ratio {ratio} (bar <= 2) | ride "
                  f"{daemon_cpu:.3f} % of a core | fixed cost {f'{fixed:.4f}' if fixed is not None else '-'} % of a core (bar < 0.05; "
                  f"{len(silent[path])} silent runs) | RssAnon max {anon:.1f} MB (bar <= 8; median of runs' max "
                  f"{statistics.median(run['anon'] for run in runs) / 1024:.1f})")
            failed |= anon > 8 or (fixed is not None and fixed >= 0.05)
    if "start" in results:
        # Ratios within each pair of runs made side by side, then their median.
        ratios = [run["cpu"]["daemon"] / max(run["cpu"]["dbus-daemon"], 1e-9) for run in results["start"]]
        ratio = statistics.median(ratios)
        print(f"start: daemon / dbus-daemon = {ratio:.2f} (runs: {', '.join(f'{r:.2f}' for r in ratios)}; bar <= 1)")
        failed |= ratio > 1
        if "acquire" in results:
            ratios = [a["cpu"]["daemon"] / max(s["cpu"]["dbus-daemon"], 1e-9) for a, s in zip(results["acquire"], results["start"])]
            ratio = statistics.median(ratios)
            print(f"acquire: daemon / dbus-daemon with StartNotify = {ratio:.2f} (runs: {', '.join(f'{r:.2f}' for r in ratios)}; bar < 0.25)")
            failed |= ratio >= 0.25
    print(f"work directory (logs): {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
