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

--silent S first runs each path once with the machines connected and silent (--rate 0, no
session open) for S seconds: the daemon's fixed cost. Per-notification cost is then also given
as (riding - silent) / notifications, separated from what the daemon spends with nothing arriving.

  scripts/bench-notify.py [--bin .build/release] [--sim PATH] [--paths start,acquire] [--repeat 3]
                          [--duration 60] [--warmup 20] [--silent 30] [--perf DIR [--perf-frequency 20000]]
--perf DIR records `perf record -g` of the daemon over each first run into DIR/PATH.data.

Prints one line per run, then medians and the ratios the bars are about:
  start:   daemon CPU / dbus-daemon CPU (bar <= 1)
  acquire: daemon CPU / dbus-daemon CPU *with StartNotify* (bar < 0.25)
Exit status 1 if a bar is missed. The machine may be shared: quote medians, run it twice.
"""
import argparse, importlib.util, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The daemon, simulator and bus are started exactly as bench-daemon.py starts them.
_spec = importlib.util.spec_from_file_location("bench_daemon", os.path.join(ROOT, "scripts", "bench-daemon.py"))
bench_daemon = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_daemon)


def one_run(args, path, work, label, rate, duration, perf_file=None):
    """One scenario; returns {process: (ns, wake-ups)}, the daemon's {thread: (ns, wake-ups)},
    the elapsed seconds and the daemon's RssAnon samples (KiB)."""
    bus_dir, sim, daemon = bench_daemon.run_scenario(
        args, rate, work, label, sim_binary=args.sim, sim_flags=["--no-acquire-notify"] if path == "start" else [])
    bus_pid = int(open(os.path.join(bus_dir, "dbus-daemon.pid")).read().split()[0])
    recorder = None
    try:
        time.sleep(args.warmup)
        if daemon.poll() is not None:
            raise SystemExit(f"bench-notify: the daemon exited {daemon.returncode}; see {work}/daemon-{label}.log")
        ready = sum(1 for m in bench_daemon.machines(daemon.control) if m.get("state") == "ready")
        if ready != args.machines:
            raise SystemExit(f"bench-notify: {ready} of {args.machines} machines ready after the warm-up: the figures would not be for {args.machines}")
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
        samples.append(bench_daemon.status_kib(daemon.pid, "RssAnon"))
        if recorder:
            recorder.wait()
        return {name: meter.totals() for name, meter in meters.items()}, meters["daemon"].by_thread(), elapsed, samples
    finally:
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
    parser.add_argument("--silent", type=int, default=0, help="seconds of a connected-and-silent run per path first (0: none)")
    parser.add_argument("--perf")
    parser.add_argument("--perf-frequency", type=int, default=999, help="perf record -F (the daemon uses 0.2 %% of a core: "
                        "at 999 Hz a minute gives some 120 samples; 20000 gives a profile worth reading)")
    parser.add_argument("--sim", help="the ftms-sim to use (default: the one in --bin), e.g. to bench an older daemon")
    args = parser.parse_args()
    args.broker = None  # run_scenario's MQTT option (bench-daemon.py --mqtt): this bench runs without a broker
    args.sample_rate = None
    work = tempfile.mkdtemp(prefix="ftms-bench-notify.")
    paths = args.paths.split(",")
    notifications = args.machines * args.rate
    silent = {}
    if args.silent > 0:
        for path in paths:
            totals, threads, elapsed, _ = one_run(args, path, work, f"{path}-silent", 0, args.silent)
            silent[path] = (percent(totals["daemon"][0], elapsed), totals["daemon"][1] / elapsed)
            print(f"{path} silent ({args.machines} connected, no notifications, no session) for {elapsed:.0f} s: "
                  f"daemon {silent[path][0]:.4f} % of one core, {silent[path][1]:.2f} wake-ups/s", flush=True)
    results = {path: [] for path in paths}
    for index in range(args.repeat):
        for path in paths:
            perf_file = os.path.join(args.perf, f"{path}.data") if args.perf and index == 0 else None
            totals, threads, elapsed, samples = one_run(args, path, work, f"{path}-{index}", args.rate, args.duration, perf_file)
            cpu = {name: percent(ns, elapsed) for name, (ns, _) in totals.items()}
            woken = {name: w / elapsed / notifications for name, (_, w) in totals.items()}
            results[path].append((cpu, woken))
            per = totals["daemon"][0] / elapsed / notifications / 1000
            spread = ", ".join(f"{name} {percent(ns, elapsed):.3f} % {w / elapsed:.1f} w/s"
                               for name, (ns, w) in sorted(threads.items(), key=lambda item: -item[1][0]) if ns > 0)
            print(f"{path} run {index + 1}: daemon {cpu['daemon']:.4f} % ({per:.1f} µs, {woken['daemon']:.2f} wake-ups per "
                  f"notification), dbus-daemon {cpu['dbus-daemon']:.4f} % ({woken['dbus-daemon']:.2f} wake-ups per "
                  f"notification), ftms-sim {cpu['sim']:.4f} % of one core; daemon RssAnon max {max(samples) / 1024:.1f} MB "
                  f"(first {samples[0] / 1024:.1f}, last {samples[-1] / 1024:.1f})\n    daemon threads: {spread}", flush=True)
    failed = False
    medians = {}
    for path, runs in results.items():
        medians[path] = {name: statistics.median(run[0][name] for run in runs) for name in ("daemon", "dbus-daemon", "sim")}
        woken = statistics.median(run[1]["daemon"] for run in runs)
        per = medians[path]["daemon"] / 100 / notifications * 1e6
        line = (f"{path} median of {len(runs)}: daemon {medians[path]['daemon']:.4f} %, dbus-daemon "
                f"{medians[path]['dbus-daemon']:.4f} % (daemon {per:.1f} µs of CPU and {woken:.2f} wake-ups per notification "
                f"at {notifications:g}/s")
        if path in silent:
            marginal = (medians[path]["daemon"] - silent[path][0]) / 100 / notifications * 1e6
            line += f"; {marginal:.1f} µs each above the connected-and-silent {silent[path][0]:.4f} %"
        print(line + ")")
    if "start" in results:
        # Ratios within each pair of runs made side by side, then their median.
        ratios = [run[0]["daemon"] / max(run[0]["dbus-daemon"], 1e-9) for run in results["start"]]
        ratio = statistics.median(ratios)
        print(f"start: daemon / dbus-daemon = {ratio:.2f} (runs: {', '.join(f'{r:.2f}' for r in ratios)}; bar <= 1)")
        failed |= ratio > 1
        if "acquire" in results:
            ratios = [a[0]["daemon"] / max(s[0]["dbus-daemon"], 1e-9) for a, s in zip(results["acquire"], results["start"])]
            ratio = statistics.median(ratios)
            print(f"acquire: daemon / dbus-daemon with StartNotify = {ratio:.2f} (runs: {', '.join(f'{r:.2f}' for r in ratios)}; bar < 0.25)")
            failed |= ratio >= 0.25
    print(f"work directory (logs): {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
