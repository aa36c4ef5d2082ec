#!/usr/bin/env python3
"""What one notification costs, StartNotify against AcquireNotify (issue 15's bars).

For each path, REPEAT times: a private dbus-daemon, ftms-sim with N machines (default 10: 5 bikes,
5 rowers) at RATE Hz (default 4), and `ftms-bridge run` as bench-daemon.py runs it (NOTIFY_SOCKET,
watchdog, Prometheus on). After the warm-up, for DURATION seconds: CPU (% of one core, from /proc
utime+stime) of the daemon, the dbus-daemon and the simulator, and the daemon's RSS (sampled every
5 s: max, first, last). `start` runs the simulator with --no-acquire-notify, so every notification
is a PropertiesChanged through the dbus-daemon; `acquire` lets the daemon acquire the data and
status characteristics.

  scripts/bench-notify.py [--bin .build/release] [--sim PATH] [--paths start,acquire] [--repeat 3]
                          [--duration 60] [--warmup 20] [--perf DIR]
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


def one_run(args, path, work, index, perf_dir):
    label = f"{path}-{index}"
    bus_dir, sim, daemon = bench_daemon.run_scenario(
        args, args.rate, work, label, sim_binary=args.sim, sim_flags=["--no-acquire-notify"] if path == "start" else [])
    bus_pid = int(open(os.path.join(bus_dir, "dbus-daemon.pid")).read().split()[0])
    recorder = None
    try:
        time.sleep(args.warmup)
        if daemon.poll() is not None:
            raise SystemExit(f"bench-notify: the daemon exited {daemon.returncode}; see {work}/daemon-{label}.log")
        pids = {"daemon": daemon.pid, "dbus-daemon": bus_pid, "sim": sim.pid}
        start = {name: bench_daemon.cpu_seconds(pid) for name, pid in pids.items()}
        wall = time.monotonic()
        if perf_dir:
            recorder = subprocess.Popen(["perf", "record", "-g", "-F", "999", "-p", str(daemon.pid), "-o",
                                         os.path.join(perf_dir, f"{path}.data"), "--", "sleep", str(args.duration)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples = []
        while time.monotonic() - wall < args.duration:
            time.sleep(min(5, max(0.1, args.duration - (time.monotonic() - wall))))
            samples.append(bench_daemon.rss_kib(daemon.pid))
        elapsed = time.monotonic() - wall
        cpu = {name: (bench_daemon.cpu_seconds(pid) - start[name]) / elapsed * 100 for name, pid in pids.items()}
        if recorder:
            recorder.wait()
        return cpu, samples
    finally:
        bench_daemon.stop(bus_dir, daemon, sim)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--rate", type=float, default=4)
    parser.add_argument("--paths", default="start,acquire")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duration", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--perf")
    parser.add_argument("--sim", help="the ftms-sim to use (default: the one in --bin), e.g. to bench an older daemon")
    args = parser.parse_args()
    args.broker = None  # run_scenario's MQTT option (bench-daemon.py --mqtt): this bench runs without a broker
    args.sample_rate = None
    work = tempfile.mkdtemp(prefix="ftms-bench-notify.")
    results = {}
    for path in args.paths.split(","):
        for index in range(args.repeat):
            cpu, samples = one_run(args, path, work, index, args.perf if index == 0 else None)
            results.setdefault(path, []).append((cpu, samples))
            print(f"{path} run {index + 1}: daemon {cpu['daemon']:.3f} %, dbus-daemon {cpu['dbus-daemon']:.3f} %, "
                  f"ftms-sim {cpu['sim']:.3f} % of one core; daemon RSS max {max(samples) / 1024:.1f} MB "
                  f"(first {samples[0] / 1024:.1f}, last {samples[-1] / 1024:.1f})", flush=True)
    notifications = args.machines * args.rate
    medians = {path: {name: statistics.median(run[0][name] for run in runs) for name in ("daemon", "dbus-daemon", "sim")}
               for path, runs in results.items()}
    failed = False
    for path, median in medians.items():
        per = median["daemon"] / 100 / notifications * 1e6
        print(f"{path} median of {len(results[path])}: daemon {median['daemon']:.3f} %, dbus-daemon {median['dbus-daemon']:.3f} % "
              f"(daemon {per:.0f} µs of CPU per notification at {notifications:g}/s)")
    if "start" in medians:
        ratio = medians["start"]["daemon"] / max(medians["start"]["dbus-daemon"], 1e-9)
        print(f"start: daemon / dbus-daemon = {ratio:.2f} (bar <= 1)")
        failed |= ratio > 1
        if "acquire" in medians:
            ratio = medians["acquire"]["daemon"] / max(medians["start"]["dbus-daemon"], 1e-9)
            print(f"acquire: daemon / dbus-daemon with StartNotify = {ratio:.2f} (bar < 0.25)")
            failed |= ratio >= 0.25
    print(f"work directory (logs): {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
