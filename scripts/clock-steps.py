#!/usr/bin/env python3
"""Dates that are true (contract §5) with the real daemon: a gateway without a real-time clock.

libfaketime moves only the wall clock of `ftms-bridged` (FAKETIME_DONT_FAKE_MONOTONIC=1, so
CLOCK_BOOTTIME and every timer stay real), from a timestamp file the daemon re-reads every
second, so this script steps the clock mid-run as NTP would. ftms-sim rides one SF-Bike on a
private bus; ftms-backend is the backend; both run on the real clock.

What it checks, in order:
  1. the wall clock reads 2000-01-01 while a ride starts; `ftms-bridge status` says the clock is
     not true; mid-ride the clock is stepped to now; the ride ends with `control --stop`, and the
     backend receives it dated truly: started_at within 2 s of when it really started (never
     before), ended_at within 2 s of its real end, no `detail.clock`;
  2. the daemon restarted at 2000 again; a second ride starts, the clock is stepped to now and
     the daemon SIGKILLed at once (its checkpoint still says 2000); restarted 2 s later in the same
     boot, it measures 2 s of downtime on CLOCK_BOOTTIME, not 26 years: the ride carries on in the
     same session, and the backend holds exactly one session for it, dated truly.
  3. a fresh gateway whose clock reads 2000-01-01 for ever, never stepped, no NTP, the backend up
     (on loopback, so its `Date` is believed) and `clock_sync_wait = 20`: a ride is at the
     backend within clock_sync_wait + 60 s of its end, dated within 2 s of the truth by the
     backend's clock, without `detail.clock`, while `status` says the system clock reads 2000,
     is not trusted, and sessions are dated by the backend (`dated_by`); a next ride's batch
     answered 503 with `Retry-After: 5` goes up after that wait;
  4. a box whose time daemon has synchronised the clock, as systemd-timedated says over D-Bus
     (python-dbusmock's timedated on the private bus) while the kernel's own flag, which the
     unit's ProtectClock= would hide anyway, says nothing: a ride is at the backend within 10 s
     of its end, not marked unsynchronised, the status dating by the synchronised clock.
In 1 and 2 `clock_sync_wait` is a day, so nothing is uploaded on the strength of the wait
running out: only true time the daemon knew dates these sessions. Prints one line per step, the figures, and
`clock-steps: PASS` or `clock-steps: FAIL: why`; exit 0 only on PASS.

  scripts/clock-steps.py [--bin .build/debug] [--keep]
"""
import argparse, calendar, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import MetricsReader, stop_processes, Failure, wait_for, daemon_config  # noqa: E402
from backend import ReferenceBackend  # noqa: E402

LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
Y2000 = 946_684_800


def step(text):
    print(f"clock-steps: {text}", flush=True)


def iso_seconds(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, database)")
    args = parser.parse_args()
    library = next((p for p in (LIBFAKETIME, "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1") if os.path.exists(p)), None)
    if library is None:
        print("clock-steps: FAIL: libfaketime is missing (scripts/install-deps.sh installs it)")
        return 1

    work = tempfile.mkdtemp(prefix="ftms-clock.")
    children, ok = [], False
    bridge = os.path.join(args.bin, "ftms-bridge")
    backend = None
    env = dict(os.environ)
    try:
        out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", os.path.join(work, "bus")],
                             check=True, capture_output=True, text=True).stdout
        env["DBUS_SYSTEM_BUS_ADDRESS"] = out.strip().split("=", 1)[1]
        children.append(subprocess.Popen([os.path.join(args.bin, "ftms-sim"), "--bus", env["DBUS_SYSTEM_BUS_ADDRESS"], "--bikes", "1",
                                          "--rate", "4"], stdout=open(os.path.join(work, "sim.log"), "w"), stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL))
        backend = ReferenceBackend(args.bin, work)

        def gateway(suffix, backend_settings, subject="bench"):
            """A gateway of its own: state and run directories, a login, its config; returns
            (state, run, config, control)."""
            state, run = os.path.join(work, "state" + suffix), os.path.join(work, "run" + suffix)
            os.makedirs(state, mode=0o700)
            os.makedirs(run, mode=0o700)
            backend.login(bridge, state, subject=subject)
            config, control = os.path.join(work, f"config{suffix}.toml"), os.path.join(run, "control.sock")
            with open(config, "w") as f:
                f.write(daemon_config({
                    "sessions": {"minimum_movement": 3, "disconnect_grace": 60, "checkpoint_interval": 2},
                    "backend": dict({"url": backend.url}, **backend_settings),
                    "state": {"directory": state},
                    "metrics_socket": {"path": os.path.join(run, "metrics.sock")},
                    "control_socket": {"path": control},
                    "log": {"level": "debug"},
                }))
            return state, run, config, control

        state, run, config, control = gateway("", {"upload_interval": 5, "clock_sync_wait": 86400})
        clock_file = os.path.join(work, "faketime")

        def set_clock(at_2000):
            # An offset from the real clock: 2000-01-01 now, or none. Written whole, then renamed.
            offset = f"{Y2000 - int(time.time())}" if at_2000 else "+0"
            with open(clock_file + ".new", "w") as f:
                f.write(offset + "\n")
            os.replace(clock_file + ".new", clock_file)

        daemons = []

        def start_daemon(config=config):
            faked = dict(env, LD_PRELOAD=library, FAKETIME_TIMESTAMP_FILE=clock_file, FAKETIME_CACHE_DURATION="1",
                         FAKETIME_DONT_FAKE_MONOTONIC="1")
            faked.pop("FAKETIME", None)
            process = subprocess.Popen([os.path.join(args.bin, "ftms-bridged"), "--config", config],
                                       stdout=open(os.path.join(work, f"daemon{len(daemons) + 1}.log"), "w"), stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, env=faked)
            daemons.append(process)
            children.append(process)
            return process

        def status(control=control, state=state):
            answer = subprocess.run([bridge, "status", "--control-socket", control, "--state-dir", state, "--json"], env=env, capture_output=True, text=True, timeout=30)
            return json.loads(answer.stdout) if answer.returncode == 0 else None

        def command(machine, flag, control=control):
            answer = subprocess.run([bridge, "control", machine, flag, "--control-socket", control], env=env, capture_output=True, text=True, timeout=30)
            if answer.returncode != 0:
                raise Failure(f"control {flag}: {answer.stderr.strip()}")

        def held():
            return {s["session_id"]: s for s in backend_sessions(backend.url)}

        reader = MetricsReader(os.path.join(run, "metrics.sock"), strict="clock-steps")
        reader.start()

        # 1. A ride at 2000-01-01, stepped to now mid-ride.
        set_clock(True)
        daemon = start_daemon()
        started = wait_for("a session started", lambda: next((m for m in reader.of("session_state") if m["payload"].get("state") == "started"), None), 90)
        real_start = time.time()
        session, bike = started["sessionId"], started["machine"]
        clock = wait_for("the daemon's status", lambda: (status() or {}).get("clock"), 30)
        if clock.get("trusted") or not clock.get("now", "").startswith("2000-01-01"):
            raise Failure(f"at 2000-01-01 the status says the clock is {clock}")
        step(f"ride {session} started on {bike} with the wall clock at {clock['now']}: {clock['state']}")
        time.sleep(8)
        set_clock(False)
        step_truth = time.time()
        clock = wait_for("the status to trust the stepped clock", lambda: (lambda c: c if c and c.get("trusted") else None)((status() or {}).get("clock")), 30)
        step(f"stepped to now at {time.strftime('%H:%M:%S', time.gmtime(step_truth))}: {clock['state']}")
        time.sleep(6)
        command(bike, "--stop")
        real_end = time.time()
        uploaded = wait_for(f"session {session} at the backend", lambda: held().get(session), 90)
        body = uploaded.get("body") or {}
        start_error = iso_seconds(body["started_at"]) - real_start
        end_error = iso_seconds(body["ended_at"]) - real_end
        step(f"uploaded {body['started_at']} – {body['ended_at']}: start {start_error:+.1f} s, end {end_error:+.1f} s from the truth; "
             f"the step's truth was {time.strftime('%H:%M:%S', time.gmtime(step_truth))}")
        if not (-2 <= start_error <= 2) or not (-3 <= end_error <= 2):
            raise Failure(f"session {session} uploaded dated {body['started_at']} – {body['ended_at']}, not when it was ridden")
        if "clock" in (body.get("detail") or {}):
            raise Failure(f"session {session} uploaded marked {body['detail']['clock']}")
        if any(iso_seconds(s["body"]["started_at"]) < step_truth - 60 for s in held().values() if s.get("body")):
            raise Failure(f"a session was uploaded dated before the step's truth: {sorted(held())}")

        # 2. Back to 2000; a ride; the clock stepped and the daemon killed before its next
        # checkpoint; restarted 2 s later.
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(30)
        set_clock(True)
        before = reader.count()
        daemon = start_daemon()
        wait_for("the bike ready again", lambda: [m for m in reader.of("machine", since=before) if m["payload"].get("state") == "ready"]
                 or reader.of("sample", since=before), 60)
        command(bike, "--start")
        second = wait_for("a second session", lambda: next((m["sessionId"] for m in reader.of("session_state", since=before)
                                                              if m["payload"].get("state") == "started"), None), 60)
        real_start = time.time()
        time.sleep(6)  # checkpoints at 2000-01-01
        set_clock(False)
        time.sleep(1.2)  # the daemon sees the step within its cache second; its next checkpoint is up to 2 s off
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(10)
        killed_at = time.time()
        step(f"ride {second} at 2000-01-01, stepped to now, SIGKILL {killed_at - real_start:.1f} s into it")
        time.sleep(2)
        before = reader.count()
        daemon = start_daemon()
        wait_for("the restored session riding on", lambda: any(m.get("sessionId") == second for m in reader.of("sample", since=before)), 60)
        time.sleep(6)
        command(bike, "--stop")
        real_end = time.time()
        uploaded = wait_for(f"session {second} at the backend", lambda: held().get(second), 90)
        time.sleep(6)  # one more upload round: a second session for the ride would show now
        sessions = held()
        ride = [s for s_id, s in sessions.items() if s_id != session]
        body = uploaded.get("body") or {}
        step(f"restarted 2 s later: the backend holds {len(ride)} session(s) for the ride: "
             + ", ".join(f"{s['session_id']} {s['body']['started_at']} – {s['body']['ended_at']} ({s['body']['detail']['end_reason']})" for s in ride))
        if len(ride) != 1 or ride[0]["received"] != 1:
            raise Failure(f"the ride across the step and the SIGKILL is {len(ride)} session(s) at the backend")
        start_error = iso_seconds(body["started_at"]) - real_start
        end_error = iso_seconds(body["ended_at"]) - real_end
        step(f"dated {start_error:+.1f} s (start), {end_error:+.1f} s (end) from the truth")
        if not (-2 <= start_error <= 2) or not (-3 <= end_error <= 2):
            raise Failure(f"session {second} dated {body['started_at']} – {body['ended_at']}, not when it was ridden")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(30) != 0:
            raise Failure(f"the daemon exited {daemon.returncode} on SIGTERM")

        # 3. A fresh gateway at 2000-01-01 for ever: no NTP, no step, the backend up.
        wait = 20
        state3, run3, config3, control3 = gateway("3", {"upload_interval": 300, "clock_sync_wait": wait}, subject="clock3")
        set_clock(True)
        reader3 = MetricsReader(os.path.join(run3, "metrics.sock"), strict="clock-steps")
        daemon = start_daemon(config3)
        reader3.start()
        wait_for("the bike ready on the fresh gateway", lambda: [m for m in reader3.of("machine") if m["payload"].get("state") == "ready"]
                 or reader3.of("sample"), 60)
        command(bike, "--start", control3)
        third = wait_for("a third session", lambda: next((m["sessionId"] for m in reader3.of("session_state")
                                                          if m["payload"].get("state") == "started"), None), 60)
        real_start = time.time()
        clock = wait_for("the status to date by the backend", lambda: (lambda c: c if c and c.get("dated_by") else None)(
            (status(control3, state3) or {}).get("clock")), 30)
        if clock.get("trusted") or not clock.get("now", "").startswith("2000-01-01") or clock.get("dated_by") != "backend":
            raise Failure(f"at 2000-01-01 with the backend's Date the status says {clock}")
        step(f"ride {third} at 2000-01-01, never stepped: {clock['state']} (dated_by {clock['dated_by']})")
        time.sleep(12)
        command(bike, "--stop", control3)
        real_end = time.time()
        uploaded = wait_for(f"session {third} at the backend", lambda: held().get(third), wait + 60)
        latency = time.time() - real_end
        body = uploaded.get("body") or {}
        start_error = iso_seconds(body["started_at"]) - real_start
        end_error = iso_seconds(body["ended_at"]) - real_end
        clock = (status(control3, state3) or {}).get("clock") or {}
        step(f"uploaded {latency:.1f} s after the ride ended (bar: {wait + 60} s), dated {body['started_at']} – {body['ended_at']}: "
             f"start {start_error:+.1f} s, end {end_error:+.1f} s from the truth; status then: {clock.get('state')}")
        if not (-2 <= start_error <= 2) or not (-3 <= end_error <= 2):
            raise Failure(f"session {third} dated {body['started_at']} – {body['ended_at']}, not when it was ridden")
        if "clock" in (body.get("detail") or {}):
            raise Failure(f"session {third} uploaded marked {body['detail']['clock']}")
        if not clock.get("now", "").startswith("2000-01-01") or clock.get("trusted"):
            raise Failure(f"after the upload the status says {clock}")
        # Retry-After at 2000: one 503 with Retry-After: 5 on the next batch, which then goes up
        # after the wait the backend asked for, not never and not at the backoff's cap.
        admin = urllib.request.Request(f"{backend.url}/_admin/faults", method="POST", headers={"Content-Type": "application/json"},
                                       data=json.dumps({"rules": ["5xx:route=batch_upload,next=1,status=503,retry-after=5"]}).encode())
        urllib.request.urlopen(admin, timeout=10).close()
        command(bike, "--start", control3)
        retried = wait_for("a session after the fault", lambda: next((m["sessionId"] for m in reader3.of("session_state")
                                                                      if m["payload"].get("state") == "started" and m["sessionId"] != third), None), 60)
        time.sleep(6)
        command(bike, "--stop", control3)
        stopped = time.time()
        wait_for(f"session {retried} at the backend after a Retry-After", lambda: held().get(retried), 60)
        waited = time.time() - stopped
        step(f"a 503 with Retry-After: 5 at 2000-01-01: the session went up {waited:.1f} s after the ride ended")
        if waited < 4:
            raise Failure(f"session {retried} went up {waited:.1f} s after a Retry-After of 5 s")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(30) != 0:
            raise Failure(f"the daemon exited {daemon.returncode} on SIGTERM")

        # 4. The true clock, synchronised by timedated's account only.
        set_clock(False)
        children.append(subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "timedated"], env=env,
                                         stdout=open(os.path.join(work, "timedated.log"), "w"), stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL))
        wait_for("the fake timedated on the bus", lambda: subprocess.run(
            ["dbus-send", f"--bus={env['DBUS_SYSTEM_BUS_ADDRESS']}", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
             "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.timedate1"], capture_output=True, text=True).stdout.rstrip().endswith("true"), 30)
        state4, run4, config4, control4 = gateway("4", {"upload_interval": 300}, subject="clock4")
        reader4 = MetricsReader(os.path.join(run4, "metrics.sock"), strict="clock-steps")
        daemon = start_daemon(config4)
        reader4.start()
        wait_for("the bike ready on the synchronised gateway", lambda: [m for m in reader4.of("machine") if m["payload"].get("state") == "ready"]
                 or reader4.of("sample"), 60)
        command(bike, "--start", control4)
        fourth = wait_for("a fourth session", lambda: next((m["sessionId"] for m in reader4.of("session_state")
                                                           if m["payload"].get("state") == "started"), None), 60)
        clock = wait_for("the status to date by the synchronised clock", lambda: (lambda c: c if c and c.get("dated_by") == "synchronised" else None)(
            (status(control4, state4) or {}).get("clock")), 30)
        step(f"ride {fourth} with timedated saying synchronised: {clock['state']} (trusted {clock['trusted']})")
        time.sleep(8)
        command(bike, "--stop", control4)
        real_end = time.time()
        uploaded = wait_for(f"session {fourth} at the backend", lambda: held().get(fourth), 60)
        latency = time.time() - real_end
        body = uploaded.get("body") or {}
        step(f"uploaded {latency:.1f} s after the ride ended (bar: 10 s), {body['started_at']} – {body['ended_at']}, "
             f"clock {(body.get('detail') or {}).get('clock', 'synchronised')}")
        if latency > 10:
            raise Failure(f"session {fourth} reached the backend {latency:.1f} s after the ride ended")
        if "clock" in (body.get("detail") or {}):
            raise Failure(f"session {fourth} uploaded marked {body['detail']['clock']}")
        with open(os.path.join(work, f"daemon{len(daemons)}.log")) as f:
            warned = [line for line in f if "unsynchronised" in line]
        if warned:
            raise Failure(f"the daemon warned: {warned[0].strip()}")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(30) != 0:
            raise Failure(f"the daemon exited {daemon.returncode} on SIGTERM")
        ok = True
        print("clock-steps: PASS")
    except (Failure, subprocess.SubprocessError, OSError, ValueError, KeyError, RuntimeError) as error:
        print(f"clock-steps: FAIL: {error} (logs in {work})")
        args.keep = True
    finally:
        stop_processes(children, 10)
        # libfaketime's shared memory, named after the daemon's pid: a SIGKILLed daemon leaves it.
        for process in children:
            for name in (f"faketime_shm_{process.pid}", f"sem.faketime_sem_{process.pid}"):
                try:
                    os.unlink(os.path.join("/dev/shm", name))
                except OSError:
                    pass
        if backend:
            backend.stop()
        subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", os.path.join(work, "bus")], capture_output=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def backend_sessions(url):
    with urllib.request.urlopen(f"{url}/_admin/sessions?bodies=1", timeout=10) as answer:
        return json.load(answer)["sessions"]


if __name__ == "__main__":
    sys.exit(main())
