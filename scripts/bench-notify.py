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
import argparse, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import NotifySocket, stop_processes  # noqa: E402
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def one_run(args, path, work, index, perf_dir):
    label = f"{path}-{index}"
    bus_dir = os.path.join(work, f"bus-{label}")
    address = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", bus_dir], check=True,
                             capture_output=True, text=True).stdout.strip().split("=", 1)[1]
    bus_pid = int(open(os.path.join(bus_dir, "dbus-daemon.pid")).read().split()[0])
    bikes = args.machines // 2
    sim_args = [args.sim or os.path.join(args.bin, "ftms-sim"), "--bus", address, "--bikes", str(bikes), "--rowers", str(args.machines - bikes),
                "--rate", str(args.rate), "--known"] + (["--no-acquire-notify"] if path == "start" else [])
    sim = subprocess.Popen(sim_args, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, f"sim-{label}.log"), "w"))
    state = os.path.join(work, f"state-{label}")
    os.makedirs(state)
    config = os.path.join(work, f"config-{label}.toml")
    with open(config, "w") as f:
        f.write(f"""[state]
directory = "{state}"
[metrics_socket]
path = "{os.path.join(work, label + '-metrics.sock')}"
[control_socket]
path = "{os.path.join(work, label + '-control.sock')}"
[prometheus]
enabled = true
listen = "127.0.0.1:0"
[log]
level = "notice"
""")
    notify = NotifySocket(os.path.join(work, f"{label}-notify.sock"))
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address, NOTIFY_SOCKET=notify.path, WATCHDOG_USEC="30000000")
    daemon = subprocess.Popen([os.path.join(args.bin, "ftms-bridge"), "run", "--config", config], env=env,
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, f"daemon-{label}.log"), "w"))
    recorder = None
    try:
        time.sleep(args.warmup)
        if daemon.poll() is not None:
            raise SystemExit(f"bench-notify: the daemon exited {daemon.returncode}; see {work}/daemon-{label}.log")
        pids = {"daemon": daemon.pid, "dbus-daemon": bus_pid, "sim": sim.pid}
        start = {name: cpu_seconds(pid) for name, pid in pids.items()}
        wall = time.monotonic()
        if perf_dir:
            recorder = subprocess.Popen(["perf", "record", "-g", "-F", "999", "-p", str(daemon.pid), "-o",
                                         os.path.join(perf_dir, f"{path}.data"), "--", "sleep", str(args.duration)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples = []
        while time.monotonic() - wall < args.duration:
            time.sleep(min(5, max(0.1, args.duration - (time.monotonic() - wall))))
            samples.append(rss_kib(daemon.pid))
        elapsed = time.monotonic() - wall
        cpu = {name: (cpu_seconds(pid) - start[name]) / elapsed * 100 for name, pid in pids.items()}
        if recorder:
            recorder.wait()
        return cpu, samples
    finally:
        stop_processes([daemon, sim], 20)
        notify.close()
        subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", bus_dir], capture_output=True)


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
