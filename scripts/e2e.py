#!/usr/bin/env python3
"""End-to-end run of the product: BlueZ on a bus, the backend, `ftms-bridge run`.

By default everything is ours and private: a dbus-daemon (scripts/test-bus.sh), ftms-sim with
an SF-Bike and an SF-Rower, and ftms-backend on a loopback port. `--bus ADDRESS` uses a BlueZ
(or a fake of it) already on that bus instead, and `--backend URL` another backend; then only
standard FTMS and BlueZ behaviour is relied on, never our simulator's or backend's extras.

What it checks, in order:
  1. the daemon connects two machines and a metrics-socket reader sees `hello`, `machine`
     ready, `sample`s from both and `session_state` started;
  2. `ftms-bridge control MACHINE --resistance 5` goes through the daemon's control socket and
     the machine accepts it (with ftms-sim: the Control Point really received 0x04 0x32);
  3. SIGKILL of the daemon mid-session, then a restart: the open sessions come back from their
     checkpoints and carry on (same session ids), each with its plot series so far in the store;
  4. `--stop` on each machine ends its session; each summary reaches the reader, and the backend
     holds each session exactly once (`ftms-bridge status` says uploaded; with our backend, its
     admin API confirms one copy of each); each session's series is bound to it, holds the
     points from before the SIGKILL and after, and `queue --plot` draws it.
Prints one line per step and `e2e: PASS` or `e2e: FAIL: why`; exit status 0 only on PASS.
"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import MetricsReader, NotifySocket, stop_processes, Failure, wait_for, daemon_config  # noqa: E402



def step(text):
    print(f"e2e: {text}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"), help="where ftms-bridge, ftms-sim and ftms-backend are")
    parser.add_argument("--bus", help="a bus where BlueZ (or a fake) already runs with two machines; default: our own bus and ftms-sim")
    parser.add_argument("--backend", help="a backend URL; default: our ftms-backend on a loopback port")
    parser.add_argument("--id-token-file", help="the id token to log in with (default: test:e2e, which our backend accepts)")
    parser.add_argument("--provider", default="google")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, database)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ftms-e2e.")
    children, ok = [], False
    bridge = os.path.join(args.bin, "ftms-bridge")

    def spawn(argv, log, **kw):
        process = subprocess.Popen(argv, stdout=kw.pop("stdout", open(os.path.join(work, log), "w")), stderr=subprocess.STDOUT if "stdout" not in kw else open(os.path.join(work, log + ".err"), "w"), stdin=subprocess.DEVNULL, **kw)
        children.append(process)
        return process

    env = dict(os.environ)
    try:
        # The bus and BlueZ.
        own_sim = args.bus is None
        if own_sim:
            out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", os.path.join(work, "bus")], check=True, capture_output=True, text=True).stdout
            env["DBUS_SYSTEM_BUS_ADDRESS"] = out.strip().split("=", 1)[1]
            spawn([os.path.join(args.bin, "ftms-sim"), "--bus", env["DBUS_SYSTEM_BUS_ADDRESS"], "--bikes", "1", "--rowers", "1", "--rate", "4"], "sim.log")
        else:
            env["DBUS_SYSTEM_BUS_ADDRESS"] = args.bus
        # The backend.
        url = args.backend
        if url is None:
            backend = subprocess.Popen([os.path.join(args.bin, "ftms-backend"), "--port", "0", "--exit-with-stdin"], stdout=subprocess.PIPE, stderr=open(os.path.join(work, "backend.log"), "w"), stdin=subprocess.PIPE, text=True)
            children.append(backend)
            line = backend.stdout.readline().split()
            if len(line) != 2 or line[0] != "listening":
                raise Failure(f"ftms-backend did not start: {line}")
            url = line[1]
        token_file = args.id_token_file
        if token_file is None:
            token_file = os.path.join(work, "id-token")
            with open(os.open(token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write("test:e2e\n")
        state, run = os.path.join(work, "state"), os.path.join(work, "run")
        os.makedirs(state, mode=0o700)
        os.makedirs(run, mode=0o700)
        login = subprocess.run([bridge, "login", "--state-dir", state, "--backend", url, "--provider", args.provider, "--id-token-file", token_file], env=env, capture_output=True, text=True, timeout=60)
        if login.returncode != 0:
            raise Failure(f"login: {login.stderr.strip()}")
        step(f"logged in at {url}")
        config = os.path.join(work, "config.toml")
        control_socket = os.path.join(run, "control.sock")
        with open(config, "w") as f:
            f.write(daemon_config({
                "sessions": {"pause_after_idle": 6, "end_after_idle": 120, "disconnect_grace": 60, "minimum_movement": 3, "checkpoint_interval": 2},
                # This box's clock may not be synchronised (and never steps): sessions go up without waiting for it.
                "backend": {"url": url, "upload_interval": 10, "clock_sync_wait": 0},
                "state": {"directory": state},
                "metrics_socket": {"path": os.path.join(run, "metrics.sock")},
                "control_socket": {"path": control_socket},
                "log": {"level": "debug"},
            }))

        # systemd's side of Type=notify, for the restarted daemon.
        notify = NotifySocket(os.path.join(run, "notify.sock"))
        notify_path = notify.path

        def start_daemon(number):
            # The restarted daemon runs as systemd would run it: NOTIFY_SOCKET and a 2 s watchdog.
            extra = {"NOTIFY_SOCKET": notify_path, "WATCHDOG_USEC": "2000000"} if number == 2 else {}
            return spawn([bridge, "run", "--config", config], f"daemon{number}.log", env=dict(env, **extra))

        daemon = start_daemon(1)
        reader = MetricsReader(os.path.join(run, "metrics.sock"), strict="e2e")
        reader.start()

        # 1. Two machines riding, seen on the socket.
        wait_for("hello", lambda: reader.of("hello"), 30)
        ready = wait_for("two machines ready", lambda: (lambda names: names if len(names) >= 2 else None)(
            {m["machine"] for m in reader.of("machine") if m["payload"].get("state") == "ready"}), 60)
        machines = sorted(ready)
        wait_for("samples from both machines", lambda: {m["machine"] for m in reader.of("sample")} >= set(machines), 30)
        started = wait_for("sessions started on both", lambda: (lambda s: s if set(s) >= set(machines) else None)(
            {m["machine"]: m["sessionId"] for m in reader.of("session_state") if m["payload"].get("state") == "started"}), 60)
        step(f"{', '.join(machines)} ready; samples flowing; sessions {sorted(started.values())}")

        # 2. A control command through the daemon.
        bike = next((m for m in machines if "Bike" in m), machines[0])
        result = subprocess.run([bridge, "control", bike, "--resistance", "5", "--control-socket", control_socket, "--json"], env=env, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure(f"control --resistance 5: {result.stderr.strip() or result.stdout.strip()}")
        answer = json.loads(result.stdout)
        if answer.get("result") != "success" or not answer.get("request", "").startswith("04"):
            raise Failure(f"control answer: {answer}")
        wait_for("the control message on the socket", lambda: [m for m in reader.of("control") if m["machine"] == bike and m["payload"].get("operation") == "set_target_resistance_level"], 10)
        if own_sim:
            writes = subprocess.run(["dbus-send", f"--bus={env['DBUS_SYSTEM_BUS_ADDRESS']}", "--dest=org.bluez", "--print-reply", "/", "org.bluez.Mock.GetCallLog"], capture_output=True, text=True).stdout
            if "WriteValue" not in writes:
                raise Failure("ftms-sim saw no Control Point write")
        step(f"control {bike} --resistance 5 → {answer['result']} (request {answer['request']})")

        # 3. SIGKILL mid-session, restart, nothing lost.
        time.sleep(5)  # at least two checkpoint intervals of riding
        # and a first chunk of each session's plot series in the store (a timed batch writes a
        # session's points once it holds 15 of them).
        wait_for("a chunk of each session's series in the store", lambda: all(
            _series(state).get(started[name], (0, 1))[0] >= 2 for name in machines), 60)
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(10)
        series_before = _series(state)
        for name in machines:
            points, finished = series_before.get(started[name], (0, 1))
            if points < 2 or finished:
                raise Failure(f"after the SIGKILL, {name}'s open session has {points} stored series points (finished={finished})")
        before = reader.count()
        daemon = start_daemon(2)
        # The new daemon may announce its machines ready before the reader reconnects (its
        # `hello` then carries that state), so samples from both are the sign they are back.
        wait_for("samples from both machines after the restart", lambda: {m["machine"] for m in reader.of("sample", since=before)} >= set(machines), 60)
        carried = {m["machine"]: m["sessionId"] for m in reader.of("sample", since=before + 1) if m.get("sessionId")}
        wait_for("the restored sessions carried on", lambda: all(
            any(m["sessionId"] == started[name] for m in reader.of("sample", since=before) if m["machine"] == name) for name in machines), 30)
        step(f"SIGKILL and restart: sessions {sorted(started[n] for n in machines)} carried on, "
             f"with {sorted(series_before[started[n]][0] for n in machines)} series points stored before the kill")
        time.sleep(6)  # ride on, so each session holds well over the minimum movement

        # 4. Stop each machine: sessions end, reach the reader and the backend once.
        for name in machines:
            stop = subprocess.run([bridge, "control", name, "--stop", "--control-socket", control_socket], env=env, capture_output=True, text=True, timeout=30)
            if stop.returncode != 0:
                raise Failure(f"control {name} --stop: {stop.stderr.strip()}")
        summaries = wait_for("both session summaries", lambda: (lambda s: s if set(s) >= set(started.values()) else None)(
            {m["sessionId"]: m for m in reader.of("session_summary")}), 60)
        def uploaded():
            status = subprocess.run([bridge, "status", "--control-socket", control_socket, "--state-dir", state, "--json"], env=env, capture_output=True, text=True, timeout=30)
            if status.returncode != 0:
                return None
            queue = json.loads(status.stdout).get("queue", {})
            return queue if queue.get("pending") == 0 and queue.get("uploaded", 0) >= 2 else None
        queue = wait_for("the sessions uploaded", uploaded, 60)
        if args.backend is None:
            with urllib.request.urlopen(f"{url}/_admin/sessions") as answer:
                held = json.load(answer)["sessions"]
            for session_id in started.values():
                copies = [s for s in held if s["session_id"] == session_id]
                if len(copies) != 1 or copies[0]["received"] != 1:
                    raise Failure(f"session {session_id} held {len(copies)} time(s) at the backend: {copies}")
            step(f"backend holds {len(held)} session(s), each exactly once")
        series_after = _series(state)
        for name in machines:
            session_id = started[name]
            points, finished = series_after.get(session_id, (0, 0))
            if not finished or points <= series_before[session_id][0]:
                raise Failure(f"{name}'s series: {points} points, finished={finished} (before the kill: {series_before[session_id][0]})")
            svg = os.path.join(work, f"{session_id}.svg")
            plot = subprocess.run([bridge, "queue", "--state-dir", state, "--plot", session_id, svg], env=env, capture_output=True, text=True, timeout=30)
            if plot.returncode != 0 or '<path class="series"' not in open(svg).read():
                raise Failure(f"queue --plot {session_id}: {plot.stderr.strip()}")
        step(f"series bound to the finished sessions: {sorted(series_after[started[n]][0] for n in machines)} points; queue --plot draws each")
        kinds = {m["type"] for m in reader.messages}
        for kind in ("hello", "machine", "sample", "session_state", "session_summary", "control", "upload"):
            if kind not in kinds:
                raise Failure(f"the reader never saw a `{kind}` message")
        seqs = [m["seq"] for m in reader.messages if m["type"] != "hello"]
        step(f"sessions ended, summarised and uploaded (queue {queue}); reader saw {len(reader.messages)} messages of {len(kinds)} types")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(20) != 0:
            raise Failure(f"the daemon exited {daemon.returncode} on SIGTERM")
        states = notify.lines(settle=0.3)
        for wanted in ("READY=1", "WATCHDOG=1", "STOPPING=1"):
            if wanted not in states:
                raise Failure(f"systemd never heard {wanted} (got {sorted(set(s.split('=')[0] for s in states))})")
        if not any(s.startswith("STATUS=") and "machines ready" in s for s in states):
            raise Failure("no STATUS= line saying how many machines are ready")
        if states.index("READY=1") > states.index("STOPPING=1"):
            raise Failure("STOPPING=1 came before READY=1")
        step(f"sd_notify: READY=1, {states.count('WATCHDOG=1')} × WATCHDOG=1, STATUS= lines, STOPPING=1")
        ok = True
        print("e2e: PASS")
    except (Failure, subprocess.SubprocessError, OSError, ValueError, KeyError) as error:
        print(f"e2e: FAIL: {error} (logs in {work})")
        args.keep = True
    finally:
        stop_processes(children, 10)
        subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", os.path.join(work, "bus")], capture_output=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def _series(state):
    """{session_id: (points, finished)} from the store, read as another process would."""
    rows = subprocess.run(["sqlite3", os.path.join(state, "ftms-bridge.sqlite"),
                           "SELECT s.session_id, COALESCE(SUM(json_array_length(c.points)), 0), s.finished FROM session_series s "
                           "LEFT JOIN session_series_chunks c USING (session_id) GROUP BY s.session_id"],
                          capture_output=True, text=True, timeout=30, check=True).stdout
    return {i: (int(p), int(f)) for i, p, f in (line.split("|") for line in rows.splitlines() if line)}


if __name__ == "__main__":
    sys.exit(main())
