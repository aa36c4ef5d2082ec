#!/usr/bin/env python3
"""A state directory that cannot be written, and damage under the running daemon: `ftms-bridged`
with ftms-sim and ftms-backend as real processes, its state directory on a tmpfs mounted in a
mount namespace of our own (run as root). Two cases, each with a daemon of its own:

read-only (contract §6, docs/sync.md "A read-only state directory"):
  1. the tmpfs is remounted read-only after `login`; the daemon starts anyway, its store in
     memory (seeded from the file); `status` (text, JSON) and STATUS= say so; `queue` lists the file;
  2. a bike and a rower ride and stop: live samples flow, and both rides reach the backend
     from memory, once each;
  3. the bike rides again; the tmpfs is remounted read-write, without a restart: the store writes
     what it held to the file and goes on with it; the ride ends and reaches the backend once;
  4. after SIGTERM the file holds every ride, each marked uploaded.

damage (docs/sync.md "Damage found while running"):
  1. the bike rides and its ride is uploaded; the rower rides on;
  2. a page of the `sessions` table in the middle of the file is garbled (the WAL folded in first,
     so the page is the file's, as on a store that ran a while);
  3. the daemon notices within 60 s (status moved_aside, the journal's line), moves the file aside
     and goes on with a fresh store, same process;
  4. the rower's ride and a second bike ride end and reach the backend: every ride once, 0 lost.
Prints one line per step, the figures, and `store-live: PASS` or `store-live: FAIL: why`.
"""
import argparse, json, os, shutil, signal, sqlite3, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from harness import MetricsReader, NotifySocket, stop_processes, Failure, wait_for, daemon_config  # noqa: E402
from backend import ReferenceBackend  # noqa: E402

DATABASE = "ftms-bridge.sqlite"


def step(text):
    print(f"store-live: {text}", flush=True)


class Gym:
    """A bus, ftms-sim with a bike and a rower, ftms-backend, and (after `start`) the daemon."""

    def __init__(self, args, work):
        self.args, self.work, self.children, self.backend = args, work, [], None
        self.bridge = os.path.join(args.bin, "ftms-bridge")
        self.state, self.run = os.path.join(work, "state"), os.path.join(work, "run")
        os.makedirs(self.state, mode=0o700)
        os.makedirs(self.run, mode=0o700)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", self.state], check=True)
        self.env = dict(os.environ)
        out = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", os.path.join(work, "bus")],
                             check=True, capture_output=True, text=True).stdout
        self.env["DBUS_SYSTEM_BUS_ADDRESS"] = out.strip().split("=", 1)[1]
        self.spawn([os.path.join(args.bin, "ftms-sim"), "--bikes", "1", "--rowers", "1", "--rate", "4"], "sim.log", self.env)
        self.backend = ReferenceBackend(args.bin, work)
        self.backend.login(self.bridge, self.state)
        self.control = os.path.join(self.run, "control.sock")

    def spawn(self, argv, log, env):
        process = subprocess.Popen(argv, stdout=open(os.path.join(self.work, log), "w"), stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env)
        self.children.append(process)
        return process

    def start(self):
        config = os.path.join(self.work, "config.toml")
        with open(config, "w") as f:
            f.write(daemon_config({
                "sessions": {"minimum_movement": 3, "checkpoint_interval": 2},
                "backend": {"url": self.backend.url, "upload_interval": 5, "clock_sync_wait": 0},
                "state": {"directory": self.state},
                "metrics_socket": {"path": os.path.join(self.run, "metrics.sock")},
                "control_socket": {"path": self.control},
                "log": {"level": "info"},
            }))
        self.notify = NotifySocket(os.path.join(self.run, "notify.sock"))
        self.daemon_log = os.path.join(self.work, "daemon.log")
        self.daemon = self.spawn([self.bridge, "run", "--config", config], "daemon.log",
                                 dict(self.env, NOTIFY_SOCKET=self.notify.path, WATCHDOG_USEC="2000000"))
        self.reader = MetricsReader(os.path.join(self.run, "metrics.sock"), strict="store-live")
        self.reader.start()
        ready = wait_for("two machines ready", lambda: (lambda names: names if len(names) >= 2 else None)(
            {m["machine"] for m in self.reader.of("machine") if m["payload"].get("state") == "ready"}), 90)
        self.bike = next(m for m in ready if "Bike" in m)
        self.rower = next(m for m in ready if "Rower" in m)

    def ctl(self, machine, *flags):
        result = subprocess.run([self.bridge, "control", machine, *flags, "--control-socket", self.control], env=self.env,
                                capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure(f"control {machine} {' '.join(flags)}: {result.stderr.strip()}")

    def status_json(self):
        result = subprocess.run([self.bridge, "status", "--control-socket", self.control, "--state-dir", self.state, "--json"],
                                env=self.env, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure(f"status --json: {result.stderr.strip()}")
        return json.loads(result.stdout)

    def status_text(self):
        return subprocess.run([self.bridge, "status", "--control-socket", self.control, "--state-dir", self.state],
                              env=self.env, capture_output=True, text=True, timeout=30).stdout

    def store_row(self):
        return next((line.strip() for line in self.status_text().splitlines() if line.strip().startswith("store:")), "")

    def started(self, machine, count):
        return [m["sessionId"] for m in self.reader.of("session_state", machine) if m["payload"].get("state") == "started"][count - 1:count]

    def ride(self, machine, count):
        return wait_for(f"{machine}'s session {count}", lambda: self.started(machine, count), 60)[0]

    def summary(self, session_id):
        return next((m for m in self.reader.of("session_summary") if m["sessionId"] == session_id), None)

    def at_backend_once(self, ids, timeout=90):
        def held():
            sessions = self.backend.sessions()
            return sessions if all(any(s["session_id"] == i for s in sessions) for i in ids) else None
        sessions = wait_for(f"{len(ids)} ride(s) at the backend", held, timeout)
        for session_id in ids:
            copies = [s for s in sessions if s["session_id"] == session_id]
            if len(copies) != 1 or copies[0].get("received", 1) != 1:
                raise Failure(f"{session_id} held {len(copies)} time(s) at the backend ({copies})")

    def stop_daemon(self):
        self.daemon.send_signal(signal.SIGTERM)
        if self.daemon.wait(30) != 0:
            raise Failure(f"the daemon exited {self.daemon.returncode} on SIGTERM")
        self.reader_log = open(self.daemon_log).read()
        return self.reader_log

    def stored(self):
        """session id -> upload status, as the file holds them (after the daemon stopped)."""
        connection = sqlite3.connect(f"file:{os.path.join(self.state, DATABASE)}?mode=ro", uri=True)
        try:
            return dict(connection.execute("SELECT session_id, upload_status FROM sessions"))
        finally:
            connection.close()

    def close(self, keep):
        stop_processes(self.children, 10)
        if self.backend:
            self.backend.stop()
        subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", os.path.join(self.work, "bus")], capture_output=True)
        subprocess.run(["mount", "-o", "remount,rw", self.state], capture_output=True)
        if keep:
            shutil.copytree(self.state, os.path.join(self.work, "state-at-exit"), dirs_exist_ok=True)
        subprocess.run(["umount", self.state], capture_output=True)


def read_only_case(gym):
    subprocess.run(["mount", "-o", "remount,ro", gym.state], check=True)
    gym.start()
    status = gym.status_json()["store"]
    if not status.get("in_memory") or status.get("writable") or status.get("cause") != "read_only":
        raise Failure(f"status does not say the store runs in memory on a read-only directory: {status}")
    row = gym.store_row()
    if "IN MEMORY ONLY" not in row:
        raise Failure(f"status text does not say the store is in memory: {row}")
    queue = subprocess.run([gym.bridge, "queue", "--state-dir", gym.state], env=gym.env, capture_output=True, text=True, timeout=30)
    if queue.returncode != 0:
        raise Failure(f"queue on the read-only directory: {queue.stderr.strip()}")
    step(f"read-only from the start: daemon up, store `{row[:90]}…`; queue exits 0")

    rides = [gym.ride(gym.bike, 1), gym.ride(gym.rower, 1)]
    samples_before = len(gym.reader.of("sample"))
    time.sleep(4)
    gym.ctl(gym.bike, "--stop")
    gym.ctl(gym.rower, "--stop")
    samples = len(gym.reader.of("sample")) - samples_before
    if samples == 0:
        raise Failure("no live samples with the store in memory")
    for session_id in rides:
        wait_for(f"summary of {session_id}", lambda: gym.summary(session_id), 30)
    gym.at_backend_once(rides)
    step(f"{samples} samples; 2 rides at the backend from memory, once each")

    gym.ctl(gym.bike, "--start")
    rides.append(gym.ride(gym.bike, 2))
    time.sleep(8)
    subprocess.run(["mount", "-o", "remount,rw", gym.state], check=True)
    writable_at = time.monotonic()
    after = wait_for("the store on the file again", lambda: (lambda s: s if s["store"]["writable"] and not s["store"].get("in_memory") else None)(
        gym.status_json()), 60)
    took = time.monotonic() - writable_at
    gym.ctl(gym.bike, "--stop")
    wait_for("the third ride's summary", lambda: gym.summary(rides[2]), 30)
    gym.at_backend_once(rides)
    step(f"remounted read-write: the store on the file after {took:.1f} s without a restart (queue {after['queue']['pending']} pending, "
         f"{after['queue']['uploaded']} uploaded); third ride at the backend once")

    if not any("STORE IN MEMORY ONLY" in line for line in gym.notify.lines()):
        raise Failure("no STATUS= line said the store is in memory")
    log = gym.stop_daemon()
    stored = gym.stored()
    missing = [i for i in rides if stored.get(i) != "uploaded"]
    if missing:
        raise Failure(f"rides not stored as uploaded in the file: {missing} (file: {stored})")
    if log.count("the store runs IN MEMORY") != 1 or log.count("what the store kept in memory is written") != 1:
        raise Failure("the journal did not say once that the store runs in memory and once that it was written out")
    step(f"after SIGTERM the file holds all {len(rides)} rides, each uploaded; 0 lost; STATUS= and the journal said so")


def damage_case(gym):
    gym.start()
    first = gym.ride(gym.bike, 1)
    rower = gym.ride(gym.rower, 1)
    time.sleep(8)
    gym.ctl(gym.bike, "--stop")
    wait_for("the first ride's summary", lambda: gym.summary(first), 30)
    gym.at_backend_once([first])
    pid = gym.daemon.pid
    path = os.path.join(gym.state, DATABASE)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = [p for (p,) in connection.execute("SELECT pageno FROM dbstat WHERE name = 'sessions' ORDER BY pageno")]
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    count = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.close()
    page = pages[len(pages) // 2]
    with open(path, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(bytes((i * 7 + 13) & 0xFF for i in range(size)))
        f.flush()
        os.fsync(f.fileno())
    garbled_at = time.monotonic()
    # `status` must answer all along, even while the damaged file cannot be read (then from the
    # last good reading, saying so): an operator asks exactly then.
    unreadable = []

    def moved_aside():
        status = gym.status_json()
        if status["queue"].get("unreadable"):
            unreadable.append(status["queue"]["unreadable"])
        return status if status["store"].get("moved_aside") else None
    moved = wait_for("the damage noticed", moved_aside, 90)
    noticed = time.monotonic() - garbled_at
    if noticed > 60:
        raise Failure(f"damage noticed after {noticed:.0f} s, over 60 s")
    if gym.daemon.poll() is not None or gym.daemon.pid != pid:
        raise Failure("the daemon did not go on")
    step(f"page {page} of {count} (sessions) garbled: noticed after {noticed:.1f} s, moved aside to "
         f"{os.path.basename(moved['store']['moved_aside']['path'])}, store writable {moved['store']['writable']}, same process; "
         f"status answered throughout ({len(unreadable)} answer(s) said the store was unreadable"
         + (f": {unreadable[0][:80]}" if unreadable else "") + ")")

    second = None
    gym.ctl(gym.bike, "--start")
    second = gym.ride(gym.bike, 2)
    time.sleep(8)
    gym.ctl(gym.bike, "--stop")
    gym.ctl(gym.rower, "--stop")
    for session_id in (rower, second):
        wait_for(f"summary of {session_id}", lambda: gym.summary(session_id), 30)
    rides = [first, rower, second]
    gym.at_backend_once(rides)
    log = gym.stop_daemon()
    if log.count("DAMAGED under the running daemon") != 1:
        raise Failure("the journal did not say once that the store was damaged under the daemon")
    status_lines = [line for line in gym.notify.lines() if "DAMAGED" in line]
    if not status_lines:
        raise Failure("no STATUS= line said the database was damaged")
    step(f"every ride at the backend once ({len(rides)}: one before the damage, one open through it, one after); journal and STATUS= said so")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"), help="where ftms-bridge, ftms-sim and ftms-backend are")
    parser.add_argument("--keep", action="store_true", help="keep the work directories (logs)")
    parser.add_argument("--case", choices=["read-only", "damage", "all"], default="all")
    parser.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.in_namespace:
        if os.geteuid() != 0:
            print("store-live: FAIL: needs root, for a tmpfs in a mount namespace of its own (unshare --mount)")
            return 1
        return subprocess.call(["unshare", "--mount", "--propagation", "private", sys.executable, os.path.abspath(__file__), "--in-namespace"]
                               + sys.argv[1:])
    cases = [("read-only", read_only_case), ("damage", damage_case)]
    for name, case in cases:
        if args.case not in ("all", name):
            continue
        work = tempfile.mkdtemp(prefix=f"ftms-store-live-{name}.")
        gym, ok = None, False
        try:
            gym = Gym(args, work)
            case(gym)
            ok = True
        except (Failure, subprocess.SubprocessError, OSError, ValueError, KeyError, StopIteration, RuntimeError, sqlite3.Error) as error:
            print(f"store-live: FAIL: {name}: {error!r} (logs in {work})")
        finally:
            if gym:
                gym.close(args.keep or not ok)
            if ok and not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        if not ok:
            return 1
    print("store-live: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
