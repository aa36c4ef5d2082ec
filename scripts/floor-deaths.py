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
Each lease death (`--lease-deaths`, default 3): as a frozen death, but the broker (mosquitto, with
persistence saved every second) crashes and restarts at once, before its keepalive would publish
floor-1's last will: the broker no longer has floor-1's connection, so no will ever comes (a
SIGTERM would not do: mosquitto 2.0.11 publishes every client's will when it stops), and its
retained presence, claim and checkpoint come back from the persistence file. floor-2 must find the death by the lease alone (the
watcher must see no will before floor-2 streams) and adopt the ride with the same sessionId. Also
timed: floor-2's own floor connection back on the restarted broker.
Each cut (`--cuts`, default 2; odd cuts close, even cuts blackhole): floor-1's MQTT connections
(metrics and floor) go through a loopback proxy (scripts/lib/cut_proxy.py), which mid-ride closes
both ends (the broker publishes floor-1's will at once) or stops forwarding with every socket left
open (the will comes after 1.5x the keepalive); the cut holds `--cut-hold` seconds (default 25,
more than the 10 s lease), then the proxy forwards again. floor-1 must keep its link (no
`disconnected`, no gap in its samples over 3 s), floor-2 must never stream the bike, floor-1 must
come back online and claim the bike again with a higher epoch, and the ride must end as one session
at the backend with the bike's whole distance.
Each handover (`--handovers`, default 3): `ftms-bridge handover` on floor-1 mid-ride; floor-2's
first sample is timed from the command; same sessionId; one session at the backend; home again.
Throughout, a watcher subscribed to both gateways' MQTT `session` topics and the floor topics
checks that no session has more than one `finished` state or summary across the gateways (a
redelivery, same gateway and `seq`, is one), that every ride's session has its one, and that
nothing split (`splitFrom`, `split_from`).

Prints every figure and the p95s; `floor: PASS` or `floor: FAIL: why`; exit 0 only on PASS.
Bars (issue 37): deaths p95 <= 15 s (lease deaths too), handovers p95 <= 5 s, one session per ride,
distance within 2 %, no session counted twice on MQTT, a cut gateway keeps its machines and rides.

  scripts/floor-deaths.py [--bin .build/debug] [--deaths 10] [--lease-deaths 3] [--cuts 2] [--cut-hold 25]
                          [--handovers 3] [--keep]
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import MetricsReader, stop_processes, Failure, wait_for, percentile, daemon_config  # noqa: E402
from broker import Broker, write_secret  # noqa: E402
from cut_proxy import CutProxy  # noqa: E402
from subscriber import Subscriber  # noqa: E402

BIKE = "SF-Bike-0001"
PREFIX = "ftms-bridge"


def step(text):
    print(f"floor: {text}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--deaths", type=int, default=10)
    parser.add_argument("--handovers", type=int, default=3)
    parser.add_argument("--lease-deaths", type=int, default=3, help="frozen deaths with a broker restart: only the lease finds them")
    parser.add_argument("--cuts", type=int, default=2, help="floor-1 cut off from the broker mid-ride (odd: closed, even: blackholed)")
    parser.add_argument("--cut-hold", type=float, default=25, help="seconds each cut lasts (more than the lease)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, databases)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ftms-floor.")
    children, buses, ok = [], [], False
    bridge = os.path.join(args.bin, "ftms-bridge")

    def spawn(argv, log, env=None):
        process = subprocess.Popen(argv, stdout=open(os.path.join(work, log), "a"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        children.append(process)
        return process

    def spawn_pipe(argv, env):
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(os.path.join(work, "watch.err"), "a"), stdin=subprocess.DEVNULL, env=env, text=True)
        children.append(process)
        return process

    proxy = None
    try:
        # Saved every second: a lease death crashes the broker (a stop would publish every will).
        broker = Broker(os.path.join(work, "broker"), spawn, persistent=True, autosave=1)
        # Both gateways' session topics and the whole floor, for the run: no session counted twice.
        watch = Subscriber(broker, [f"{PREFIX}/+/machines/+/session", f"{PREFIX}/floor/#"], spawn_pipe, client_id="floor-watch")
        watch.start()
        # floor-1 reaches the broker through a proxy that can cut it off (the cut cases).
        proxy = CutProxy(broker.port) if args.cuts else None
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
                }, extra=broker.mqtt_config(name, keepalive=5, via=proxy.url if proxy and number == 1 else None) + f'client_id = "{name}"\n'))
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
            answer = subprocess.run(["dbus-send", f"--bus={gateway['bus']}", "--print-reply", "--dest=org.bluez", "/", f"org.bluez.Mock.{member}", *arguments],
                                    capture_output=True, text=True, timeout=10)
            if answer.returncode != 0:
                raise Failure(f"{gateway['name']}: org.bluez.Mock.{member} {' '.join(arguments)}: {answer.stderr.strip()}")

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

        deaths, handovers, rides, ridden = [], [], [], []
        silent_deaths, killed_deaths, lease_deaths, cuts = [], [], [], []

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
            ridden.append(session)
            if error > 0.02:
                raise Failure(f"{label}: {stored} m at the backend, the bike's counter moved {delta} m ({error:.1%})")
            return stored, delta

        def home_again(label):
            since = time.monotonic()
            wait_for(f"{label}: the bike home again between sessions", lambda: samples(floor1, since), 90)
            control(floor1, "control", BIKE, "--start")

        def watched(kind, after_wall=0.0):
            """(receive time, topic, message) of the watcher's `kind` topics (`session`, `presence`, `claim`, `checkpoint`) since `after_wall`."""
            def wanted(topic):
                if kind == "presence":
                    return topic.startswith(f"{PREFIX}/floor/gateways/")
                if kind in ("claim", "checkpoint"):
                    return topic.startswith(f"{PREFIX}/floor/machines/") and topic.endswith("/" + kind)
                return not topic.startswith(f"{PREFIX}/floor/") and topic.endswith("/session")
            found = []
            for received, topic, payload in watch.matching(wanted):
                if received < after_wall or not payload:
                    continue
                try:
                    found.append((received, topic, json.loads(payload)))
                except ValueError:
                    raise Failure(f"the watcher got a payload that is not JSON on {topic}: {payload[:200]!r}")
            return found

        def presence_of(name, online, after_wall):
            """When the watcher first got `name`'s presence saying `online` since `after_wall`."""
            return next((received for received, _, m in watched("presence", after_wall) if m.get("gateway") == name and m.get("online") == online), None)

        def bike_address():
            return next((m["payload"]["address"].upper() for m in floor1["reader"].of("machine", BIKE) if m["payload"].get("address")), None)

        def claims_of_bike(after_wall=0.0):
            address = bike_address()
            return [(received, m) for received, topic, m in watched("claim", after_wall) if topic == f"{PREFIX}/floor/machines/{address}/claim"]

        def connected_lines(gateway):
            """How many times the gateway's log says its floor connection came up."""
            with open(os.path.join(work, f"{gateway['name']}.log"), errors="replace") as log:
                return sum(1 for line in log if "floor: connected to" in line)

        def restart_broker():
            """mosquitto crashed (SIGKILL: mosquitto 2.0.11 publishes every client's last will when
            it stops, even on SIGTERM) and started again on its old port, with what its last
            autosave (every second) kept."""
            broker.crash()
            broker.start()

        def handed_over(gateway, session):
            """Whether the gateway's status names `session` handed over to another gateway."""
            answer = subprocess.run([bridge, "status", "--json", "--control-socket", gateway["control"], "--state-dir", gateway["state"]],
                                    env=gateway["env"], capture_output=True, text=True, timeout=30)
            if answer.returncode != 0:
                return None
            counters = (json.loads(answer.stdout).get("floor") or {}).get("counters") or {}
            return any(h.get("session_id") == session for h in counters.get("handed_over", []))

        def death(label, kind):
            """floor-1 dies mid-ride (`killed`, `frozen`, or `lease`: frozen and the broker restarted)."""
            session, first = ride_at_home(label)
            # A silent death (frozen, lease) is the daemon frozen (SIGSTOP), as a power cut leaves its
            # TCP connections open, so only the broker's keepalive (its last will) or the presence's
            # lease tells the neighbour; killed is SIGKILL, whose closed socket brings the will at once.
            gone, gone_wall = time.monotonic(), time.time()
            connections = connected_lines(floor2)
            mock(floor1, "SetPowered", "string:hci0", "boolean:false")
            floor1["daemon"].send_signal(signal.SIGKILL if kind == "killed" else signal.SIGSTOP)
            extra = ""
            if kind == "lease":
                # Before the broker's keepalive (1.5 x 5 s) would publish floor-1's will: the restarted
                # broker no longer has floor-1's connection, so its will never comes.
                restart_broker()
                restarted = time.monotonic()
                back = wait_for(f"{label}: floor-2's floor connection back on the restarted broker",
                                lambda: connected_lines(floor2) > connections and time.monotonic(), 60, interval=0.05)
                extra = f" (broker restarted {restarted - gone:.2f} s after; floor-2's floor connection back {back - restarted:.2f} s after the restart)"
            took, message = wait_for(f"{label}: floor-2's first sample", lambda: next(iter(samples(floor2, gone)), None), 60)
            if kind != "killed":
                floor1["daemon"].send_signal(signal.SIGKILL)
            floor1["daemon"].wait(10)
            {"killed": killed_deaths, "frozen": silent_deaths, "lease": lease_deaths}[kind].append(took - gone)
            if kind != "lease":
                deaths.append(took - gone)
            if kind == "lease":
                will = presence_of("floor-1", False, gone_wall)
                if will is not None and will < gone_wall + (took - gone):
                    raise Failure(f"{label}: floor-1's last will came {will - gone_wall:.2f} s after its death: the lease did not find it alone")
            if message.get("sessionId") != session:
                wait_for(f"{label}: floor-2 carrying {session}", lambda: open_session(floor2, gone) == session and session, 20)
            time.sleep(4)  # the ride goes on at the neighbour
            stored, delta = carried(label, session, first, gone, floor2)
            mock(floor1, "SetPowered", "string:hci0", "boolean:true")
            start(floor1)
            home_again(label)
            wait_for(f"{label}: floor-1 back, marking {session} handed over", lambda: handed_over(floor1, session), 60)
            queue = subprocess.run([bridge, "queue", "--state-dir", floor1["state"], "--json"], env=floor1["env"], capture_output=True, text=True, timeout=30)
            if session in queue.stdout:
                raise Failure(f"{label}: floor-1 queued the adopted session {session} again: {queue.stdout.strip()}")
            step(f"{label} ({kind}): floor-2 streamed {took - gone:.2f} s after floor-1's link went{extra}; {session} one session, {stored} m (counter {delta} m)")

        def cut(label, how):
            """floor-1 cut off from the broker mid-ride for `--cut-hold` s (`close` or `blackhole`), then back."""
            session, first = ride_at_home(label)
            held = [m for _, m in claims_of_bike() if m.get("holder") == "floor-1"]
            if not held:
                raise Failure(f"{label}: no claim of {BIKE} by floor-1 seen on the broker")
            before = held[-1]["epoch"]
            # The worst case for the neighbour: it believes it hears the bike. BlueZ keeps a device's
            # last RSSI after it stops advertising (a device it once connected stays, RSSI and all),
            # so once floor-1's will says it is gone, floor-2 takes the bike: claims it and tries to
            # connect. The link lock must stop it, and floor-2 must adopt
            # nothing of the ride (it adopts only once it has the link), and yield when floor-1 is back.
            mock(floor2, "SetRSSI", f"string:{bike_address()}", "int16:-70")
            cut_at, cut_wall = time.monotonic(), time.time()
            proxy.cut(how)
            will = wait_for(f"{label}: floor-1's last will on the broker", lambda: presence_of("floor-1", False, cut_wall), 30)
            time.sleep(max(0.0, args.cut_hold - (time.monotonic() - cut_at)))
            restored, restored_wall = time.monotonic(), time.time()
            proxy.restore()
            online = wait_for(f"{label}: floor-1 online again", lambda: presence_of("floor-1", True, restored_wall), 60)
            claimed = wait_for(f"{label}: floor-1 claiming {BIKE} again above epoch {before}", lambda: next(
                (m for _, m in claims_of_bike(restored_wall) if m.get("holder") == "floor-1" and m.get("epoch", 0) > before), None), 30)
            time.sleep(3)  # the ride goes on at home, back on the floor
            times = [t for t, m in samples(floor1, cut_at - 2)]
            gap = max((b - a for a, b in zip(times, times[1:])), default=None)
            if gap is None or times[-1] < time.monotonic() - 2:
                raise Failure(f"{label}: floor-1's samples stopped during the cut")
            lost = [m["payload"] for _, m in floor1["reader"].timed_of("machine", BIKE, cut_at) if m["payload"].get("state") == "disconnected"]
            if lost or gap > 3:
                raise Failure(f"{label}: floor-1's link to {BIKE} did not hold through the cut (samples gap {gap:.2f} s, {lost})")
            if samples(floor2, cut_at):
                raise Failure(f"{label}: floor-2 streamed {BIKE} while floor-1 held its link")
            if open_session(floor1, cut_at) not in (None, session) or any(m.get("sessionId") != session for _, m in samples(floor1, cut_at)):
                raise Failure(f"{label}: floor-1's samples left session {session} during the cut")
            stood_in = [m for _, m in claims_of_bike(cut_wall) if m.get("holder") == "floor-2"]
            mirrored = [m.get("session_id") for _, _, m in watched("checkpoint", cut_wall) if m.get("holder") == "floor-2"]
            if mirrored or open_session(floor2, cut_at):
                raise Failure(f"{label}: floor-2 adopted a ride it never had the link for (mirrored {mirrored}, open {open_session(floor2, cut_at)})")
            stored, delta = carried(label, session, first, cut_at, floor1)
            cuts.append((how, gap, online - restored_wall))
            home_again(label)
            step(f"{label} ({how}d for {restored - cut_at:.1f} s): link kept, samples gap max {gap:.2f} s; floor-1's will after {will - cut_wall:.2f} s, "
                 f"online again {online - restored_wall:.2f} s after the restore, claim epoch {before} -> {claimed['epoch']}; "
                 f"floor-2 never streamed{' (it claimed the bike at epoch ' + str(stood_in[-1]['epoch']) + ', lost to the link, adopted nothing)' if stood_in else ''}; "
                 f"{session} one session, {stored} m (counter {delta} m)")

        for number in range(1, args.deaths + 1):
            death(f"death {number}", "frozen" if number % 2 == 0 else "killed")
        for number in range(1, args.lease_deaths + 1):
            death(f"lease death {number}", "lease")
        for number in range(1, args.cuts + 1):
            cut(f"cut {number}", "close" if number % 2 == 1 else "blackhole")

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
        if lease_deaths:
            step(f"lease deaths: {len(lease_deaths)}, first sample at the neighbour p50 {percentile(lease_deaths, 0.5):.2f} s, "
                 f"p95 {percentile(lease_deaths, 0.95):.2f} s, max {max(lease_deaths):.2f} s (bar p95 <= 15 s)")
            if percentile(lease_deaths, 0.95) > 15:
                raise Failure(f"lease deaths p95 {percentile(lease_deaths, 0.95):.2f} s > 15 s")
        for how in ("close", "blackhole"):
            done = [c for c in cuts if c[0] == how]
            if done:
                step(f"cuts ({how}): {len(done)}, link kept in all, samples gap max {max(c[1] for c in done):.2f} s, "
                     f"online again after the restore p50 {percentile([c[2] for c in done], 0.5):.2f} s, max {max(c[2] for c in done):.2f} s")
        if handovers:
            step(f"handovers: {len(handovers)}, p50 {percentile(handovers, 0.5):.2f} s, p95 {percentile(handovers, 0.95):.2f} s (bar <= 5 s)")
            if percentile(handovers, 0.95) > 5:
                raise Failure(f"handover p95 {percentile(handovers, 0.95):.2f} s > 5 s")
        # MQTT `session`: each ride's session ended once, across both gateways (a redelivery, the same
        # gateway's same `seq`, is one event), and nothing split.
        def ends():
            found = {}
            for _, topic, m in watched("session"):
                state = (m.get("payload") or {}).get("state")
                if m.get("type") == "session_summary" or (m.get("type") == "session_state" and state == "finished"):
                    found.setdefault((m.get("type"), m.get("sessionId")), set()).add((topic.split("/")[1], m.get("seq")))
            return found
        wait_for("every ride's session finished on MQTT `session`",
                 lambda: all(("session_state", sid) in ends() and ("session_summary", sid) in ends() for sid in ridden), 30)
        time.sleep(2)  # a second end would be on its way
        twice = {key: sorted(events) for key, events in ends().items() if len(events) > 1}
        if twice:
            raise Failure(f"a session ended more than once on MQTT `session`: {twice}")
        split = [m.get("sessionId") for _, _, m in watched("session") if (m.get("payload") or {}).get("splitFrom")]
        split += [m.get("session_id") for _, _, m in watched("checkpoint") if m.get("split_from")]
        if split:
            raise Failure(f"rides split: {sorted(set(split))}")
        step(f"MQTT session: {len({key[1] for key in ends()})} sessions, each finished and summarised at most once across both gateways; no split")
        step(f"rides: {len(rides)}, distance error max {max(rides, default=0):.2%}; backend holds {len(ids)} sessions, none twice")
        ok = True
        print("floor: PASS", flush=True)
    except Failure as failure:
        print(f"floor: FAIL: {failure}", flush=True)
    finally:
        for gateway in gateways if 'gateways' in dir() else []:
            gateway["reader"].stopped = True
        if proxy:
            proxy.close()
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
