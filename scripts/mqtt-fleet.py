#!/usr/bin/env python3
"""Several gateways, one broker (contract §11): the whole gym as one live picture on MQTT.

Starts one mosquitto (a free loopback port, a password file, no anonymous clients), one
ftms-backend, and GATEWAYS gateways (default 3), each with its own private bus, its own ftms-sim
(one SF-Bike and one SF-Rower at 4 notifications/s), its own state directory (device id, login,
upload queue) and `ftms-bridge run` with `[mqtt]` on. One `mosquitto_sub -t 'ftms-bridge/#'`
watches it all. The password reaches mosquitto_sub through its config file and the daemons
through a 0600 password_file: never a command line.

What it checks, in order:
  0. the first gateway starts while the broker is down: it runs, and `ftms-bridge status` names
     the absent broker until it comes; a fourth gateway with a wrong password runs too, status
     says the broker refused its login, and it never appears on the broker;
  1. every gateway says `online` (retained) and every machine of every gateway is `ready` on
     its retained state topic, with samples flowing on its sample topic;
  2. a session starts on every machine (QoS 1 `session_state` started);
  3. the broker stops mid-ride (SIGTERM; it keeps the subscriber's persistent session) and
     `ftms-bridge control M --stop` ends every session while it is down; once it is back, every
     `session_summary` (QoS 1, kept by the gateways) reaches the subscriber, every gateway says
     `online` again, the backend holds every session exactly once, and each machine's samples
     from the outage arrive as at most two (the latest queued, the one its rate limit held),
     not as a burst of stale ones;
  4. the last gateway frozen (SIGSTOP, as a power cut leaves its TCP connection): its status
     turns `offline` (the broker's last will, not before the keepalive could run out; how long
     after is printed: MQTT's 1.5 × keepalive plus mosquitto's check interval); the others stay
     `online`;
  4b. another gateway killed (SIGKILL): the kernel closes its socket, so the last will says
     `offline` (how soon is printed: at once on a quiet box).
  5. SIGTERM of the others: each says `offline` itself on the way out.
Prints the notification-to-subscriber latency of samples (p50/p99: subscriber receive time
minus the envelope's timestamp, taken by the daemon as it publishes the decoded notification)
and the broker's message rate. `e2e-mqtt: PASS` or `e2e-mqtt: FAIL: why`; exit 0 only on PASS.

  scripts/mqtt-fleet.py [--bin .build/debug] [--gateways 3] [--keepalive 5] [--sample-rate 1] [--keep]
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import stop_processes, Failure, wait_for, percentile, daemon_config  # noqa: E402
from broker import Broker, write_secret  # noqa: E402
from subscriber import Subscriber  # noqa: E402



def step(text):
    print(f"e2e-mqtt: {text}", flush=True)



def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--gateways", type=int, default=3)
    parser.add_argument("--keepalive", type=int, default=5)
    parser.add_argument("--sample-rate", type=float, default=1.0, help="[mqtt] sample_rate of every gateway")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, databases)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ftms-mqtt-fleet.")
    children, ok, buses = [], False, []
    bridge = os.path.join(args.bin, "ftms-bridge")

    def spawn(argv, log, env=None):
        process = subprocess.Popen(argv, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        children.append(process)
        return process

    def spawn_pipe(argv, env):
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(os.path.join(work, "watch.err"), "w"), stdin=subprocess.DEVNULL, env=env, text=True)
        children.append(process)
        return process

    try:
        broker = Broker(os.path.join(work, "broker"), spawn, persistent=True, queue_qos0=True)
        watch = Subscriber(broker, ["ftms-bridge/#"], spawn_pipe, client_id="fleet-watch")
        watch.start()
        backend = subprocess.Popen([os.path.join(args.bin, "ftms-backend"), "--port", "0", "--exit-with-stdin"], stdout=subprocess.PIPE,
                                   stderr=open(os.path.join(work, "backend.log"), "w"), stdin=subprocess.PIPE, text=True)
        children.append(backend)
        line = backend.stdout.readline().split()
        if len(line) != 2 or line[0] != "listening":
            raise Failure(f"ftms-backend did not start: {line}")
        url = line[1]
        step(f"broker on 127.0.0.1:{broker.port}, backend at {url}")

        def broker_status(gateway, waiting=True):
            """The `mqtt` part of `ftms-bridge status --json`, from the gateway's control socket
            (before the daemon answers there, status reads the gateway's own store: never this
            machine's default one). While `waiting`, a status that fails (the daemon not up yet,
            its store not made yet) is None: not yet."""
            answer = subprocess.run([bridge, "status", "--json", "--control-socket", gateway["control"], "--state-dir", gateway["state"]],
                                    env=gateway["env"], capture_output=True, text=True, timeout=30)
            if answer.returncode != 0:
                if waiting:
                    return None
                raise Failure(f"{gateway['name']} status: {answer.stderr.strip()}")
            return json.loads(answer.stdout).get("mqtt")

        def config_text(home, url, state, run, name, password_file):
            return daemon_config({
                "sessions": {"pause_after_idle": 6, "end_after_idle": 120, "minimum_movement": 3, "checkpoint_interval": 2},
                # This box's clock may not be synchronised (and never steps): sessions go up without waiting for it.
                "backend": {"url": url, "upload_interval": 5, "clock_sync_wait": 0},
                "state": {"directory": state},
                "metrics_socket": {"path": os.path.join(run, "metrics.sock")},
                "control_socket": {"path": os.path.join(run, "control.sock")},
            }, extra=broker.mqtt_config(name, keepalive=args.keepalive, sample_rate=args.sample_rate).replace(broker.password_file, password_file))

        gateways = []
        for number in range(1, args.gateways + 1):
            name = f"gw-{number}"
            home = os.path.join(work, name)
            state, run = os.path.join(home, "state"), os.path.join(home, "run")
            os.makedirs(state, mode=0o700)
            os.makedirs(run, mode=0o700)
            bus_dir = os.path.join(home, "bus")
            out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", bus_dir], check=True, capture_output=True, text=True).stdout
            buses.append(bus_dir)
            env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=out.strip().split("=", 1)[1])
            spawn([os.path.join(args.bin, "ftms-sim"), "--bikes", "1", "--rowers", "1", "--rate", "4"], f"{name}-sim.log", env)
            # One account per gateway: the backend binds an account to one device.
            token_file = os.path.join(home, "id-token")
            write_secret(token_file, f"test:fleet-{name}\n")
            login = subprocess.run([bridge, "login", "--state-dir", state, "--backend", url, "--provider", "google", "--id-token-file", token_file],
                                   env=env, capture_output=True, text=True, timeout=60)
            if login.returncode != 0:
                raise Failure(f"{name} login: {login.stderr.strip()}")
            config = os.path.join(home, "config.toml")
            control = os.path.join(run, "control.sock")
            with open(config, "w") as f:
                f.write(config_text(home, url, state, run, name, broker.password_file))
            if number == 1:
                # Broker absent when the gateway starts: it runs, says why in status, and joins
                # the broker once it comes.
                broker.stop()
            daemon = spawn([bridge, "run", "--config", config], f"{name}.log", env)
            if number == 1:
                gateway = {"name": name, "env": env, "control": control, "state": state}
                absent = wait_for(f"{name} status naming the absent broker",
                                  lambda: (lambda m: m if m and m["state"] != "connected" and m.get("last_error") else None)(broker_status(gateway)), 60)
                broker.start()
                step(f"{name} started without a broker: status says mqtt {absent['state']}: {absent['last_error']}")
            gateways.append({"name": name, "env": env, "control": control, "state": state, "daemon": daemon})

        # 1. Every gateway online, every machine ready and sampling, on one subscriber.
        names = [g["name"] for g in gateways]
        wait_for("every gateway online", lambda: all(watch.last(f"ftms-bridge/{n}/status") == "online" for n in names), 60)

        # A gateway with the wrong password: it runs, status says the broker refused it, and it
        # never appears on the broker. No simulator on its bus: only MQTT is looked at.
        home = os.path.join(work, "gw-wrong")
        state, run = os.path.join(home, "state"), os.path.join(home, "run")
        os.makedirs(state, mode=0o700)
        os.makedirs(run, mode=0o700)
        out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", os.path.join(home, "bus")], check=True, capture_output=True, text=True).stdout
        buses.append(os.path.join(home, "bus"))
        wrong_env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=out.strip().split("=", 1)[1])
        wrong_password = os.path.join(home, "password")
        write_secret(wrong_password, "not-the-password\n")
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write(config_text(home, url, state, run, "gw-wrong", wrong_password))
        wrong = spawn([bridge, "run", "--config", os.path.join(home, "config.toml")], "gw-wrong.log", wrong_env)
        refused = wait_for("gw-wrong's status naming the refused login",
                           lambda: (lambda m: m if m and "not authorised" in (m.get("last_error") or "") else None)(
                               broker_status({"name": "gw-wrong", "env": wrong_env, "control": os.path.join(run, "control.sock"), "state": state})), 60)
        if refused["state"] == "connected" or watch.on("ftms-bridge/gw-wrong/status") or wrong.poll() is not None:
            raise Failure(f"gw-wrong with a wrong password: mqtt {refused}, still running: {wrong.poll() is None}")
        wrong.terminate()
        wrong.wait(10)
        step(f"a gateway with a wrong password runs and says so in status: mqtt {refused['state']}: {refused['last_error']}")

        def ready_machines():
            ready = set()
            for (_, topic, payload) in watch.matching(lambda t: t.endswith("/state")):
                if json.loads(payload)["payload"].get("state") == "ready":
                    ready.add(topic.rsplit("/", 1)[0])
            return ready
        machines = wait_for(f"{2 * len(names)} machines ready", lambda: (lambda r: r if len(r) >= 2 * len(names) else None)(ready_machines()), 90)
        wait_for("samples from every machine", lambda: all(watch.on(m + "/sample") for m in machines), 30)
        step(f"{len(names)} gateways online; {len(machines)} machines ready with samples: {', '.join(sorted(m.split('/', 1)[1] for m in machines))}")

        seen = broker_status(gateways[0], waiting=False)
        if not seen or seen["state"] != "connected" or seen["delivered"] <= 0 or seen["url"] != f"mqtt://127.0.0.1:{broker.port}":
            raise Failure(f"status --json while the broker is up: mqtt {seen}")

        # 2. A session on every machine.
        def sessions(state):
            found = {}
            for (_, topic, payload) in watch.matching(lambda t: t.endswith("/session")):
                message = json.loads(payload)
                if message["type"] == "session_state" and message["payload"].get("state") == state:
                    found[topic.rsplit("/", 1)[0]] = message["sessionId"]
            return found
        try:
            started = wait_for("a session on every machine", lambda: (lambda s: s if set(s) >= machines else None)(sessions("started")), 60)
        except Failure as error:
            raise Failure(f"{error}: none started on {', '.join(sorted(machines - set(sessions('started'))))} (watch.log has what the subscriber got)")
        step(f"sessions started on all {len(started)} machines")

        def retained_open_sessions():
            """What a subscriber arriving now gets on `open_session`: {machine topic: sessionId}."""
            out = subprocess.run(["mosquitto_sub", "-t", "ftms-bridge/+/machines/+/open_session", "--retained-only", "-W", "2", "-F", "%t %p"],
                                 env=broker.client_env("late"), capture_output=True, text=True).stdout
            found = {}
            for line in out.splitlines():
                topic, _, payload = line.partition(" ")
                if payload:
                    found[topic.rsplit("/", 1)[0]] = json.loads(payload)["sessionId"]
            return found
        late = wait_for("every open session retained", lambda: (lambda o: o if o == started else None)(retained_open_sessions()), 30)
        step(f"a subscriber arriving mid-ride gets all {len(late)} open sessions retained on open_session")
        time.sleep(5)  # ride past the minimum movement

        # 3. The broker goes away mid-ride; every session ends while it is down. Its summaries
        # (QoS 1) wait in each gateway and arrive once it is back; every gateway is online
        # again and every machine's state is retained again.
        broker.stop()
        outage = len(watch.messages)
        for gateway in gateways:
            for machine in [m for m in machines if m.split("/")[1] == gateway["name"]]:
                machine_name = machine.rsplit("/", 1)[1]
                stop = subprocess.run([bridge, "control", machine_name, "--stop", "--control-socket", gateway["control"]],
                                      env=gateway["env"], capture_output=True, text=True, timeout=30)
                if stop.returncode != 0:
                    raise Failure(f"{gateway['name']} control {machine_name} --stop: {stop.stderr.strip()}")

        def summaries():
            found = set()
            for (_, topic, payload) in watch.matching(lambda t: t.endswith("/session")):
                message = json.loads(payload)
                if message["type"] == "session_summary":
                    found.add(message["sessionId"])
            return found
        down = wait_for("status says the broker is gone, with the summaries queued",
                        lambda: (lambda m: m if m and m["state"] != "connected" and m.get("last_error") and m["queued"] >= 2 else None)(broker_status(gateways[0])), 30)
        step(f"status during the outage: mqtt {down['state']}, {down['queued']} queued, last error: {down['last_error']}")
        time.sleep(5)  # an outage long enough for several samples per machine
        returned = time.time()
        broker.start()
        wait_for("every session_summary on MQTT after the broker restart", lambda: summaries() >= set(started.values()), 60)
        wait_for("every gateway online again", lambda: all(any(p == "online" for (_, p) in watch.on(f"ftms-bridge/{n}/status", outage)) for n in names), 30)
        step("broker restarted mid-ride, sessions ended meanwhile: every summary arrived (QoS 1), every gateway online again")
        # Samples are a live view: what a gateway offered while the broker was away arrives as
        # its latest (and at most the one its rate limit still held), not as a burst of stale
        # ones. The watcher's persistent session keeps QoS 0 messages while it reconnects.
        stale = {}
        for (_, topic, payload) in watch.matching(lambda t: t.endswith("/sample")):
            if float(json.loads(payload)["timestamp"]) < returned:
                stale.setdefault(topic, 0)
        with watch.lock:
            after_outage = watch.messages[outage:]
        for (_, topic, payload) in after_outage:
            if topic.endswith("/sample") and float(json.loads(payload)["timestamp"]) < returned:
                stale[topic] = stale.get(topic, 0) + 1
        if any(count > 2 for count in stale.values()):
            raise Failure(f"samples from the outage delivered after it, per machine: {stale}")
        step(f"samples from the outage delivered after it: {sorted(stale.values())} per machine (at most 2: the latest, and the one the rate limit held)")
        wait_for("no open session retained once every session ended", lambda: not retained_open_sessions(), 30)
        step("every open_session cleared once its session ended")

        def held():
            with urllib.request.urlopen(f"{url}/_admin/sessions") as answer:
                sessions_held = json.load(answer)["sessions"]
            ids = [s["session_id"] for s in sessions_held]
            return sessions_held if set(ids) >= set(started.values()) else None
        sessions_held = wait_for("every session at the backend", held, 60)
        for session_id in started.values():
            copies = [s for s in sessions_held if s["session_id"] == session_id]
            if len(copies) != 1 or copies[0]["received"] != 1:
                raise Failure(f"session {session_id} held {len(copies)} time(s) at the backend: {copies}")
        wait_for("upload topics", lambda: all(watch.last(f"ftms-bridge/{n}/upload") for n in names), 30)
        step(f"{len(started)} session summaries on MQTT; the backend holds each session exactly once")

        # 4. A gateway gone as a power cut takes it (SIGSTOP: no FIN, no DISCONNECT, its socket
        # just goes quiet): the broker's last will says offline once its keepalive runs out.
        victim = gateways[-1]
        since = len(watch.messages)
        victim["daemon"].send_signal(signal.SIGSTOP)
        killed = time.time()
        # MQTT says 1.5 × keepalive after the last packet; mosquitto 2.0.11 checks its clients'
        # keepalives on its own timer, which adds up to about one keepalive more (10.9 s for
        # keepalive 5 on a quiet box). How long is a figure, not a bound (a loaded box adds to
        # it); what is checked is that the will came, and not before the keepalive could have
        # run out: a stopped process publishes nothing, so an earlier `offline` is not the will.
        wait_for(f"{victim['name']} offline", lambda: any(p == "offline" for (_, p) in watch.on(f"ftms-bridge/{victim['name']}/status", since)), 60)
        seen = next(t for (t, p) in watch.on(f"ftms-bridge/{victim['name']}/status", since) if p == "offline")
        # (1.5 × keepalive after its last packet, which was at most one keepalive before the stop.)
        if seen - killed < 0.5 * args.keepalive:
            raise Failure(f"{victim['name']} showed offline {seen - killed:.1f} s after it froze, before its keepalive of {args.keepalive} s could run out")
        for other in gateways[:-1]:
            if watch.last(f"ftms-bridge/{other['name']}/status") != "online":
                raise Failure(f"{other['name']} is not online any more")
        step(f"{victim['name']} frozen (SIGSTOP): offline (last will) after {seen - killed:.1f} s (keepalive {args.keepalive} s)")
        victim["daemon"].send_signal(signal.SIGKILL)

        # 4b. A gateway killed (SIGKILL, as the OOM killer or a crash does): the kernel closes
        # its socket, so the broker publishes the last will at once, well within the keepalive.
        clean = gateways[:-1]
        if len(gateways) >= 3:
            crashed = gateways[-2]
            clean = gateways[:-2]
            since = len(watch.messages)
            crashed["daemon"].send_signal(signal.SIGKILL)
            killed = time.time()
            wait_for(f"{crashed['name']} offline", lambda: any(p == "offline" for (_, p) in watch.on(f"ftms-bridge/{crashed['name']}/status", since)), 60)
            seen = next(t for (t, p) in watch.on(f"ftms-bridge/{crashed['name']}/status", since) if p == "offline")
            step(f"{crashed['name']} killed (SIGKILL): offline (last will) after {seen - killed:.2f} s (keepalive {args.keepalive} s)")

        # Figures: latency of samples, and the broker's message rate ($SYS, 1 s interval).
        # Samples from before the broker outage: those queued through it measure the outage.
        latencies = []
        with watch.lock:
            before_outage = watch.messages[:outage]
        for (received, topic, payload) in [m for m in before_outage if m[1].endswith("/sample")]:
            latencies.append((received - float(json.loads(payload)["timestamp"])) * 1000)
        rate = broker.sys_value("$SYS/broker/load/messages/received/1min")
        step(f"sample latency notification→subscriber over {len(latencies)} samples: p50 {percentile(latencies, 0.5):.1f} ms, "
             f"p99 {percentile(latencies, 0.99):.1f} ms; broker received {rate or '?'} messages/min (1-min average)")

        # 5. The others stop cleanly and say offline themselves.
        for other in clean:
            other["daemon"].send_signal(signal.SIGTERM)
        for other in clean:
            if other["daemon"].wait(20) != 0:
                raise Failure(f"{other['name']} exited {other['daemon'].returncode} on SIGTERM")
        wait_for("clean offline", lambda: all(watch.last(f"ftms-bridge/{o['name']}/status") == "offline" for o in clean), 10)
        step("the others stopped on SIGTERM and said offline")
        ok = True
        print("e2e-mqtt: PASS")
    except (Failure, subprocess.SubprocessError, OSError, ValueError, KeyError, StopIteration) as error:
        print(f"e2e-mqtt: FAIL: {error} (logs in {work})")
        args.keep = True
    finally:
        stop_processes(children, 10)
        # What the subscriber saw, for the reader of a failure.
        with open(os.path.join(work, "watch.log"), "w") as log:
            for (received, topic, payload) in list(watch.messages if "watch" in locals() else []):
                log.write(f"{received:.3f} {topic} {payload}\n")
        for bus in buses:
            subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", bus], capture_output=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
