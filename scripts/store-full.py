#!/usr/bin/env python3
"""The state disk fills up mid-ride: `ftms-bridged` with ftms-sim and ftms-backend as real processes,
its state directory on a small tmpfs (mounted in a mount namespace of our own: run as root).

What it does and checks, in order (contract §6, docs/sync.md "When the store cannot write"):
  1. a bike and a rower ride; a filler file fills the tmpfs until ENOSPC; `ftms-bridge status`
     (text and JSON) and the watchdog's STATUS= say the store cannot write, and live samples flow on;
  2. the bike's session ends while the disk is full: it is stored in the room the daemon's
     reserve gives back;
  3. the filler grows again and eats that room; the rower's session ends: held in memory, and
     status says so; the bike rides again meanwhile;
  4. the filler is removed, without a restart: the held session is written, the store is
     writable again, the reserve is made again;
  5. the bike's second ride ends, the rower rides again and ends: every ride (four) is at the
     backend exactly once, with the distance its machine counted; the journal said once that
     writes failed and once that they recovered.
Prints one line per step, the figures, and `store-full: PASS` or `store-full: FAIL: why`.
"""
import argparse, errno, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import MetricsReader, NotifySocket, stop_processes, Failure, wait_for, daemon_config  # noqa: E402
from backend import ReferenceBackend  # noqa: E402

TMPFS_SIZE = "16m"


def step(text):
    print(f"store-full: {text}", flush=True)


def fill(path):
    """Appends zeros to `path` until the file system says ENOSPC; returns the bytes written."""
    written = 0
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (1 << 20, 64 << 10, 4096, 512):
            block = b"\0" * size
            while True:
                try:
                    written += os.write(descriptor, block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(descriptor)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"), help="where ftms-bridge, ftms-sim and ftms-backend are")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    parser.add_argument("--full-seconds", type=float, default=4, help="how long the bike rides again while the disk is full")
    parser.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.in_namespace:
        if os.geteuid() != 0:
            print("store-full: FAIL: needs root, for a tmpfs in a mount namespace of its own (unshare --mount)")
            return 1
        # The tmpfs is mounted in a private mount namespace: nothing of it reaches the host.
        return subprocess.call(["unshare", "--mount", "--propagation", "private", sys.executable, os.path.abspath(__file__), "--in-namespace"]
                               + sys.argv[1:])

    work = tempfile.mkdtemp(prefix="ftms-store-full.")
    children, ok, backend = [], False, None
    bridge = os.path.join(args.bin, "ftms-bridge")

    def spawn(argv, log, env):
        process = subprocess.Popen(argv, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        children.append(process)
        return process

    state, run = os.path.join(work, "state"), os.path.join(work, "run")
    env = dict(os.environ)
    try:
        os.makedirs(state, mode=0o700)
        os.makedirs(run, mode=0o700)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "tmpfs", state], check=True)
        out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", os.path.join(work, "bus")], check=True, capture_output=True, text=True).stdout
        env["DBUS_SYSTEM_BUS_ADDRESS"] = out.strip().split("=", 1)[1]
        spawn([os.path.join(args.bin, "ftms-sim"), "--bikes", "1", "--rowers", "1", "--rate", "4"], "sim.log", env)
        backend = ReferenceBackend(args.bin, work)
        backend.login(bridge, state)
        control_socket = os.path.join(run, "control.sock")
        config = os.path.join(work, "config.toml")
        with open(config, "w") as f:
            f.write(daemon_config({
                "sessions": {"minimum_movement": 3, "checkpoint_interval": 2},
                "backend": {"url": backend.url, "upload_interval": 5},
                "state": {"directory": state, "low_space_warning_mib": 4},
                "metrics_socket": {"path": os.path.join(run, "metrics.sock")},
                "control_socket": {"path": control_socket},
                "log": {"level": "info"},
            }))
        notify = NotifySocket(os.path.join(run, "notify.sock"))
        daemon_log = os.path.join(work, "daemon.log")
        daemon = spawn([bridge, "run", "--config", config], "daemon.log", dict(env, NOTIFY_SOCKET=notify.path, WATCHDOG_USEC="2000000"))
        reader = MetricsReader(os.path.join(run, "metrics.sock"), strict="store-full")
        reader.start()

        def ctl(machine, *flags):
            result = subprocess.run([bridge, "control", machine, *flags, "--control-socket", control_socket], env=env, capture_output=True, text=True, timeout=30)
            if result.returncode != 0:
                raise Failure(f"control {machine} {' '.join(flags)}: {result.stderr.strip()}")

        def status_json():
            result = subprocess.run([bridge, "status", "--control-socket", control_socket, "--state-dir", state, "--json"], env=env, capture_output=True, text=True, timeout=30)
            if result.returncode != 0:
                raise Failure(f"status --json: {result.stderr.strip()}")
            return json.loads(result.stdout)

        def status_text():
            return subprocess.run([bridge, "status", "--control-socket", control_socket, "--state-dir", state], env=env, capture_output=True, text=True, timeout=30).stdout

        def started(machine, count):
            return [m["sessionId"] for m in reader.of("session_state", machine) if m["payload"].get("state") == "started"][count - 1:count]

        def summary(session_id):
            return next((m for m in reader.of("session_summary") if m["sessionId"] == session_id), None)

        # 1. Two machines riding, then the disk fills.
        ready = wait_for("two machines ready", lambda: (lambda names: names if len(names) >= 2 else None)(
            {m["machine"] for m in reader.of("machine") if m["payload"].get("state") == "ready"}), 90)
        bike = next(m for m in ready if "Bike" in m)
        rower = next(m for m in ready if "Rower" in m)
        rides = {bike: [wait_for("the bike's session", lambda: started(bike, 1), 60)[0]],
                 rower: [wait_for("the rower's session", lambda: started(rower, 1), 60)[0]]}
        reserve = os.path.join(state, "ftms-bridge.reserve")
        wait_for("the reserve made", lambda: os.path.exists(reserve) and os.stat(reserve).st_blocks * 512 >= 2 << 20, 10)
        time.sleep(6)
        filler = os.path.join(state, "filler")
        filled = fill(filler)
        full_at = time.monotonic()
        if os.statvfs(state).f_bavail != 0:
            raise Failure(f"the tmpfs still has {os.statvfs(state).f_bavail} blocks free after the filler")
        failing = wait_for("status to say the store cannot write",
                           lambda: (lambda s: s if not s.get("store", {}).get("writable", True) else None)(status_json()), 30)
        text = status_text()
        if "CANNOT WRITE" not in text:
            raise Failure(f"status text while full does not say the store cannot write:\n{text}")
        store_row = next((line.strip() for line in text.splitlines() if line.strip().startswith("store:")), "")
        step(f"filler {filled >> 20} MiB: disk full; status says `{store_row}` (cause {failing['store'].get('cause')})")
        samples_before = len(reader.of("sample"))

        # 2. The bike's session ends while the disk is full: stored in the reserve's room.
        ctl(bike, "--stop")
        wait_for("the bike's summary", lambda: summary(rides[bike][0]), 30)
        queued = wait_for("the bike's session stored", lambda: (lambda s: s if s["store"]["reserve"] == "released" and s["store"]["held_sessions"] == 0
                                                                 and s["queue"]["pending"] + s["queue"]["uploaded"] >= 1 else None)(status_json()), 30)
        step(f"{bike}'s session {rides[bike][0]} ended while full: stored in the room the reserve gave back (reserve {queued['store']['reserve']})")

        # 3. The filler eats that room too; the rower's session ends: held in memory.
        more = fill(filler)
        ctl(rower, "--stop")
        wait_for("the rower's summary", lambda: summary(rides[rower][0]), 30)
        held = wait_for("the rower's session held", lambda: (lambda s: s if s["store"]["held_sessions"] == 1 else None)(status_json()), 30)
        text = status_text()
        if "1 finished session held in memory" not in text or "CANNOT WRITE" not in text:
            raise Failure(f"status text with a session held does not say so:\n{text}")
        store_row = next((line.strip() for line in text.splitlines() if line.strip().startswith("store:")), "")
        ctl(bike, "--start")
        rides[bike].append(wait_for("the bike's second session", lambda: started(bike, 2), 30)[0])
        time.sleep(args.full_seconds)
        samples_full = len(reader.of("sample")) - samples_before
        if samples_full == 0:
            raise Failure("no live samples while the disk was full")
        step(f"filler +{more >> 10} KiB: {rower}'s session {rides[rower][0]} held in memory ({held['store']['held_sessions']}); "
             f"status `{store_row}`; {bike} rides again ({rides[bike][1]}); {samples_full} samples while full")

        # 4. Room again, no restart.
        os.unlink(filler)
        freed_at = time.monotonic()
        recovered = wait_for("the store writable again", lambda: (lambda s: s if s["store"]["writable"] and s["store"]["held_sessions"] == 0
                                                                  and s["store"]["reserve"] == "held" else None)(status_json()), 60)
        recovery = time.monotonic() - freed_at
        step(f"filler removed: store writable again after {recovery:.1f} s, held session written, reserve made again "
             f"(full for {freed_at - full_at:.0f} s, {recovered['store']['free_bytes'] >> 20} MiB free)")

        # 5. The bike's second ride ends; the rower rides again and ends.
        time.sleep(4)
        ctl(bike, "--stop")
        ctl(rower, "--start")
        rides[rower].append(wait_for("the rower's second session", lambda: started(rower, 2), 30)[0])
        time.sleep(6)
        ctl(rower, "--stop")
        for machine, ids in rides.items():
            for session_id in ids:
                wait_for(f"{machine}'s summary of {session_id}", lambda: summary(session_id), 30)
        all_ids = [i for ids in rides.values() for i in ids]

        def backend_sessions():
            with urllib.request.urlopen(f"{backend.url}/_admin/sessions?bodies=1", timeout=10) as answer:
                return json.load(answer)["sessions"]

        def at_backend():
            held = {s["session_id"]: s for s in backend_sessions()}
            return held if all(i in held for i in all_ids) else None
        held_at_backend = wait_for("every ride at the backend", at_backend, 90)
        figures = []
        for machine, ids in rides.items():
            for session_id in ids:
                copies = [s for s in backend_sessions() if s["session_id"] == session_id]
                if len(copies) != 1:
                    raise Failure(f"{session_id} held {len(copies)} times at the backend")
                body = copies[0]["body"]
                samples = [m["payload"] for m in reader.of("sample", machine) if m.get("sessionId") == session_id]
                counted = samples[-1]["total_distance_m"] - samples[0]["total_distance_m"] if samples else None
                stated = summary(session_id)["payload"].get("total_distance")
                if counted is None or abs(body["total_distance"] - counted) > max(3, counted * 0.02) or body["total_distance"] != stated:
                    raise Failure(f"{session_id} on {machine}: backend {body['total_distance']} m, machine counted {counted} m, summary {stated} m")
                if body["total_distance"] <= 0:
                    raise Failure(f"{session_id} on {machine}: no distance")
                figures.append(f"{machine} {session_id[:8]} {body['total_distance']} m (machine {counted} m, received {copies[0]['received']}x)")
        step("at the backend once each: " + "; ".join(figures))
        if len(held_at_backend) != len(all_ids):
            raise Failure(f"the backend holds {len(held_at_backend)} sessions for {len(all_ids)} rides")

        states = notify.lines()
        if not any(s.startswith("STATUS=") and "STORE CANNOT WRITE" in s for s in states):
            raise Failure("no STATUS= line said the store cannot write")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(30) != 0:
            raise Failure(f"the daemon exited {daemon.returncode} on SIGTERM")
        log = open(daemon_log).read()
        failing_lines = log.count("state database cannot be written:")
        recovered_lines = log.count("state database writable again")
        if failing_lines != 1 or recovered_lines != 1:
            raise Failure(f"the journal said {failing_lines} time(s) that writes failed and {recovered_lines} time(s) that they recovered (one each)")
        step(f"journal: 1 line when writes failed, 1 when they recovered; STATUS= said so; {log.count('held in memory')} line(s) on the held session")
        ok = True
        print("store-full: PASS")
    except (Failure, subprocess.SubprocessError, OSError, ValueError, KeyError, StopIteration, RuntimeError) as error:
        print(f"store-full: FAIL: {error!r} (logs in {work})")
        args.keep = True
    finally:
        stop_processes(children, 10)
        if backend:
            backend.stop()
        subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", os.path.join(work, "bus")], capture_output=True)
        if args.keep:
            shutil.copytree(state, os.path.join(work, "state-at-exit"), ignore=shutil.ignore_patterns("filler"), dirs_exist_ok=True)
        subprocess.run(["umount", state], capture_output=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
