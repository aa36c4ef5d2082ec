#!/usr/bin/env python3
"""The floor (docs/fleet.md) as a gym lives it: two gateways in range of one bike, the home
gateway dying mid-ride and handing the bike over on purpose, and the rides still one session each.

Starts one mosquitto (a free loopback port, a password file, persistence on), one ftms-backend,
two private buses, and one ftms-sim whose shared air puts one SF-Bike on both buses (`--also-bus`):
`floor-1` hears it 15 dB better than `floor-2` and names it in `machines.allow` (its home), and the
bike takes one central at a time (`--max-centrals 1`), as FTMS machines do. Its rider rides on while
no gateway holds it (`--ride-on`), so its counters span every outage. Both gateways run
`ftms-bridge run` with `[mqtt]` and `[fleet]` on, one account each.

Each death (`--deaths`, default 10):
  1. the bike is home (floor-1 streams it) with a session open and mirrored;
  2. floor-1's adapter powers off (its link is gone at that instant) and its daemon is SIGKILLed
     (odd deaths: its broker connection closes, so its last will comes at once) or frozen with
     SIGSTOP (even deaths: a power cut, whose connections stay open until the broker's keepalive
     or the presence's lease runs out), then SIGKILLed once the neighbour streams;
  3. floor-2 adopts: its first sample of the bike after the link went is timed, and it must carry
     the same sessionId;
  4. the ride ends (`control --stop` through floor-2); the backend must hold that session once,
     its distance within 2 % of the bike's counter delta across both gateways;
  5. floor-1 comes back (adapter on, daemon started on its old store): its status must name the
     ride handed over, it must upload nothing for it, and the bike must go home between sessions; a new ride starts there (`control
     --start`).
Each handover (`--handovers`, default 3): `ftms-bridge handover` on floor-1 mid-ride; floor-2's
first sample is timed from the command; same sessionId; one session at the backend; home again.

Prints every figure and the p95s; `floor: PASS` or `floor: FAIL: why`; exit 0 only on PASS.
Bars (issue 37): deaths p95 <= 15 s, handovers p95 <= 5 s, one session per ride, distance within 2 %.

  scripts/floor-deaths.py [--bin .build/debug] [--deaths 10] [--handovers 3] [--keep]
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import MetricsReader, stop_processes, Failure, wait_for, percentile, daemon_config  # noqa: E402
from broker import Broker, write_secret  # noqa: E402

BIKE = "SF-Bike-0001"


def step(text):
    print(f"floor: {text}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--deaths", type=int, default=10)
    parser.add_argument("--handovers", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, databases)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ftms-floor.")
    children, buses, ok = [], [], False
    bridge = os.path.join(args.bin, "ftms-bridge")

    def spawn(argv, log, env=None):
        process = subprocess.Popen(argv, stdout=open(os.path.join(work, log), "a"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        children.append(process)
        return process

    try:
        broker = Broker(os.path.join(work, "broker"), spawn, persistent=True)
        backend = subprocess.Popen([os.path.join(args.bin, "ftms-backend"), "--port", "0", "--exit-with-stdin"], stdout=subprocess.PIPE,
                                   stderr=open(os.path.join(work, "backend.log"), "w"), stdin=subprocess.PIPE, text=True)
        children.append(backend)
        line = backend.stdout.readline().split()
        if len(line) != 2 or line[0] != "listening":
            raise Failure(f"ftms-backend did not start: {line}")
        url = line[1]

        def backend_sessions():
            with urllib.request.urlopen(f"{url}/_admin/sessions?bodies=1", timeout=10) as answer:
                return json.load(answer)["sessions"]

        gateways = []
        for number, allow in ((1, [BIKE]), (2, [])):
            name = f"floor-{number}"
            home = os.path.join(work, name)
            state, run = os.path.join(home, "state"), os.path.join(home, "run")
            os.makedirs(state, mode=0o700)
            os.makedirs(run, mode=0o700)
            bus_dir = os.path.join(home, "bus")
            out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", bus_dir], check=True, capture_output=True, text=True).stdout
            buses.append(bus_dir)
            address = out.strip().split("=", 1)[1]
            env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
            # Both gateways run on this one host, so their device ids (derived from /etc/machine-id)
            # and the MQTT client ids made of them would be the same: each gets its own.
            token_file = os.path.join(home, "id-token")
            write_secret(token_file, f"test:floor-{name}\n")
            config = os.path.join(home, "config.toml")
            with open(config, "w") as f:
                f.write(daemon_config({
                    "machines": {"allow": allow},
                    "sessions": {"pause_after_idle": 4, "end_after_idle": 6, "disconnect_grace": 60, "minimum_movement": 3, "checkpoint_interval": 2},
                    "backend": {"url": url, "upload_interval": 2, "clock_sync_wait": 0},
                    "state": {"directory": state},
                    "metrics_socket": {"path": os.path.join(run, "metrics.sock")},
                    "control_socket": {"path": os.path.join(run, "control.sock")},
                    "fleet": {"enabled": True},
                }, extra=broker.mqtt_config(name, keepalive=5) + f'client_id = "{name}"\n'))
            gateways.append({"name": name, "env": env, "bus": address, "state": state, "config": config,
                             "control": os.path.join(run, "control.sock"), "token": token_file,
                             "reader": MetricsReader(os.path.join(run, "metrics.sock")), "daemon": None})

        floor1, floor2 = gateways
        spawn([os.path.join(args.bin, "ftms-sim"), "--bus", floor1["bus"], "--also-bus", floor2["bus"],
               "--rssi-shift=0", "--rssi-shift=-15", "--max-centrals", "1", "--ride-on", "--rate", "4", "--bikes", "1", "--seed", "37"],
              "sim.log")
        for gateway in gateways:
            login = subprocess.run([bridge, "login", "--state-dir", gateway["state"], "--backend", url, "--provider", "google",
                                    "--id-token-file", gateway["token"]], env=gateway["env"], capture_output=True, text=True, timeout=60)
            if login.returncode != 0:
                raise Failure(f"{gateway['name']} login: {login.stderr.strip()}")
            gateway["reader"].start()

        def start(gateway):
            gateway["daemon"] = spawn([bridge, "run", "--config", gateway["config"]], f"{gateway['name']}.log", gateway["env"])

        def mock(gateway, member, *arguments):
            subprocess.run(["dbus-send", f"--bus={gateway['bus']}", "--print-reply", "--dest=org.bluez", "/", f"org.bluez.Mock.{member}", *arguments],
                           check=True, capture_output=True, timeout=10)

        def control(gateway, *flags):
            answer = subprocess.run([bridge, *flags, "--control-socket", gateway["control"]], env=gateway["env"], capture_output=True, text=True, timeout=60)
            if answer.returncode != 0:
                raise Failure(f"{gateway['name']} {' '.join(flags)}: {answer.stderr.strip() or answer.stdout.strip()}")
            return answer.stdout

        def samples(gateway, after=0.0):
            return [(t, m) for t, m in gateway["reader"].timed_of("sample", BIKE, after)]

        def open_session(gateway, after=0.0):
            """The sessionId of the bike's latest `started`/`resumed` session_state on the gateway since `after`."""
            for _, message in reversed(gateway["reader"].timed_of("session_state", BIKE, after)):
                if message["payload"].get("state") in ("started", "resumed") and message.get("sessionId"):
                    return message["sessionId"]
            return None

        def distance(message):
            return message["payload"].get("total_distance_m")

        start(floor1)
        start(floor2)
        wait_for("the bike streaming at its home (floor-1)", lambda: samples(floor1), 90)
        control(floor1, "control", BIKE, "--start")
        step(f"floor-1 holds {BIKE}; floor-2 stands by; broker 127.0.0.1:{broker.port}, backend {url}")

        deaths, handovers, rides = [], [], []
        silent_deaths, killed_deaths = [], []

        def ride_at_home(label):
            """Waits for an open session at home with samples and a mirrored checkpoint; its id and first distance."""
            since = time.monotonic() - 30
            session = wait_for(f"{label}: a session open at home", lambda: open_session(floor1, since), 60)
            first = wait_for(f"{label}: samples of session {session}", lambda: next(
                (distance(m) for _, m in samples(floor1, since) if m.get("sessionId") == session and distance(m) is not None), None), 30)
            time.sleep(5)  # two checkpoint intervals: the checkpoint is on the broker
            return session, first

        def carried(label, session, first, took_at, holder):
            """The ride ends at `holder`; the backend must hold `session` once, with the whole distance."""
            last = max((distance(m) for _, m in samples(holder, took_at) if m.get("sessionId") == session and distance(m) is not None), default=None)
            control(holder, "control", BIKE, "--stop")
            summary = wait_for(f"{label}: {session} at the backend", lambda: next(
                (s for s in backend_sessions() if s["session_id"] == session), None), 90)
            time.sleep(3)  # a second copy would arrive within the upload interval
            copies = [s for s in backend_sessions() if s["session_id"] == session]
            if len(copies) != 1 or copies[0].get("received") != 1:
                raise Failure(f"{label}: session {session} at the backend {len(copies)} time(s): {copies}")
            if last is None or first is None:
                raise Failure(f"{label}: no distance in the samples (first {first}, last {last})")
            delta = max(1, last - first)
            stored = (summary.get("body") or {}).get("total_distance")
            error = abs((stored or 0) - delta) / delta
            rides.append(error)
            if error > 0.02:
                raise Failure(f"{label}: {stored} m at the backend, the bike's counter moved {delta} m ({error:.1%})")
            return stored, delta

        def home_again(label):
            since = time.monotonic()
            wait_for(f"{label}: the bike home again between sessions", lambda: samples(floor1, since), 90)
            control(floor1, "control", BIKE, "--start")

        for death in range(1, args.deaths + 1):
            label = f"death {death}"
            session, first = ride_at_home(label)
            # Every second death is silent: the daemon frozen (SIGSTOP), as a power cut leaves its
            # TCP connections open, so only the broker's keepalive (its last will) or the
            # presence's lease tells the neighbour; the others are SIGKILL, whose closed socket
            # brings the will at once.
            silent = death % 2 == 0
            gone = time.monotonic()
            mock(floor1, "SetPowered", "string:hci0", "boolean:false")
            floor1["daemon"].send_signal(signal.SIGSTOP if silent else signal.SIGKILL)
            took, message = wait_for(f"{label}: floor-2's first sample", lambda: next(iter(samples(floor2, gone)), None), 60)
            if silent:
                floor1["daemon"].send_signal(signal.SIGKILL)
            floor1["daemon"].wait(10)
            deaths.append(took - gone)
            (silent_deaths if silent else killed_deaths).append(took - gone)
            if message.get("sessionId") != session:
                adopted = wait_for(f"{label}: floor-2 carrying {session}", lambda: open_session(floor2, gone) == session and session, 20)
            time.sleep(4)  # the ride goes on at the neighbour
            stored, delta = carried(label, session, first, gone, floor2)
            mock(floor1, "SetPowered", "string:hci0", "boolean:true")
            start(floor1)
            home_again(label)
            def handed_over():
                answer = subprocess.run([bridge, "status", "--json", "--control-socket", floor1["control"], "--state-dir", floor1["state"]],
                                        env=floor1["env"], capture_output=True, text=True, timeout=30)
                if answer.returncode != 0:
                    return None
                counters = (json.loads(answer.stdout).get("floor") or {}).get("counters") or {}
                return any(h.get("session_id") == session for h in counters.get("handed_over", []))
            wait_for(f"{label}: floor-1 back, marking {session} handed over", handed_over, 60)
            queue = subprocess.run([bridge, "queue", "--state-dir", floor1["state"], "--json"], env=floor1["env"], capture_output=True, text=True, timeout=30)
            if session in queue.stdout:
                raise Failure(f"{label}: floor-1 queued the adopted session {session} again: {queue.stdout.strip()}")
            step(f"{label} ({'frozen' if silent else 'killed'}): floor-2 streamed {took - gone:.2f} s after floor-1's link went; {session} one session, {stored} m (counter {delta} m)")

        for handover in range(1, args.handovers + 1):
            label = f"handover {handover}"
            session, first = ride_at_home(label)
            asked = time.monotonic()
            control(floor1, "handover", BIKE)
            took, message = wait_for(f"{label}: floor-2's first sample", lambda: next(iter(samples(floor2, asked)), None), 60)
            handovers.append(took - asked)
            wait_for(f"{label}: floor-2 carrying {session}", lambda: open_session(floor2, asked) == session and session, 20)
            time.sleep(4)
            stored, delta = carried(label, session, first, asked, floor2)
            home_again(label)
            step(f"{label}: floor-2 streamed {took - asked:.2f} s after handover; {session} one session, {stored} m (counter {delta} m)")

        at_backend = backend_sessions()
        ids = [s["session_id"] for s in at_backend]
        if len(ids) != len(set(ids)):
            raise Failure(f"a session held twice at the backend: {sorted(ids)}")
        if deaths:
            step(f"deaths: {len(deaths)}, first sample at the neighbour p50 {percentile(deaths, 0.5):.2f} s, p95 {percentile(deaths, 0.95):.2f} s, max {max(deaths):.2f} s (bar p95 <= 15 s)")
            for kind, values in (("killed", killed_deaths), ("frozen", silent_deaths)):
                if values:
                    step(f"  {kind}: {len(values)}, p50 {percentile(values, 0.5):.2f} s, max {max(values):.2f} s")
            if percentile(deaths, 0.95) > 15:
                raise Failure(f"deaths p95 {percentile(deaths, 0.95):.2f} s > 15 s")
        if handovers:
            step(f"handovers: {len(handovers)}, p50 {percentile(handovers, 0.5):.2f} s, p95 {percentile(handovers, 0.95):.2f} s (bar <= 5 s)")
            if percentile(handovers, 0.95) > 5:
                raise Failure(f"handover p95 {percentile(handovers, 0.95):.2f} s > 5 s")
        step(f"rides: {len(rides)}, distance error max {max(rides, default=0):.2%}; backend holds {len(ids)} sessions, none twice")
        ok = True
        print("floor: PASS", flush=True)
    except Failure as failure:
        print(f"floor: FAIL: {failure}", flush=True)
    finally:
        for gateway in gateways if 'gateways' in dir() else []:
            gateway["reader"].stopped = True
        stop_processes(children, 10)
        for bus in buses:
            subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", bus], capture_output=True)
        if args.keep or not ok:
            print(f"floor: logs in {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
