#!/usr/bin/env python3
"""The dashboard in a real headless browser, against the simulated gym.

ftms-sim rides two bikes and a rower on a private bus, ftms-bridge run keeps them, and
ftms-bridge dashboard serves the page from the daemon's metrics socket. Debian's chromium,
driven through chromedriver's W3C WebDriver HTTP API (plain HTTP, no Selenium), then checks:

  1. a tile for every machine appears, each ready;
  2. the values change as the machines ride;
  3. a reload is complete at once: the first render after it has every tile, with its sparkline;
  4. a machine whose link drops (and will not come back) shows disconnected;
  5. screenshots at 1920x1080 and 390x844 (written to --out, default the work directory);
  6. a second dashboard process, as ftms-bridge-dashboard.service runs it beside the daemon,
     serves the same floor;
  7. after the dropped machine's session ends, the sessions page lists it, and its page shows
     the plot (an SVG drawn from the stored series, read back here) and the summary as stored
     for upload, in both dashboard processes (each opens the store read-only);
  8. the floor read from MQTT (the daemon publishes to a private mosquitto): every tile as the
     gateway says (the two riding ready);
     then the gateway dies (SIGKILL: the broker publishes its last will, `offline`) and every
     tile of it shows offline, on the open page, after a reload, and in a dashboard started
     afterwards (which gets the gateway's retained `offline` and its machines' retained
     `ready` states from the broker).

It prints page load to first full render and notification-to-page latency (p50/p99, from the
daemon's publish timestamp to the page's render of that tile, one clock).
"""
import argparse, base64, json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request
from xml.etree import ElementTree

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from harness import stop_processes, Failure, wait_for, percentile, daemon_config  # noqa: E402
from broker import Broker  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))



def step(text):
    print(f"dashboard-browser: {text}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]



class WebDriver:
    """The few W3C WebDriver commands the test needs, over plain HTTP."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def call(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read() or b"{}").get("value")
        except urllib.error.HTTPError as error:
            raise Failure(f"webdriver {method} {path}: {error.code} {error.read()[:300]!r}")

    def start(self, profile):
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
                "--window-size=1920,1080", "--hide-scrollbars", "--no-first-run"]
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": {"binary": shutil.which("chromium") or "/usr/bin/chromium", "args": args}}}})
        self.session = value["sessionId"]

    def s(self, path):
        return f"/session/{self.session}{path}"

    def go(self, url):
        self.call("POST", self.s("/url"), {"url": url})

    def js(self, script, *args):
        return self.call("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def viewport(self, width, height, mobile):
        self.call("POST", self.s("/goog/cdp/execute"), {"cmd": "Emulation.setDeviceMetricsOverride", "params": {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", self.s("/screenshot"))))

    def quit(self):
        if self.session:
            try:
                self.call("DELETE", self.s(""), timeout=10)
            except Exception:
                pass


TILES = """return [...document.querySelectorAll('article.tile')].map(t => ({
  machine: t.dataset.machine, gateway: t.dataset.gateway, state: t.dataset.state, type: t.dataset.type,
  pill: t.querySelector('[data-field=state]').textContent, stale: t.classList.contains('offline'),
  primary: t.querySelector('[data-field=primary]').textContent, secondary: t.querySelector('[data-field=secondary]').textContent,
  distance: t.querySelector('[data-field=distance]').textContent, time: t.querySelector('[data-field=time]').textContent,
  spark: t.querySelector('polyline').getAttribute('points')}));"""
HOLDERS = """return Object.fromEntries([...document.querySelectorAll('article.tile')].map(t => {
  const h = t.querySelector('[data-field=holder]'); return [t.dataset.machine, h.hidden ? '' : h.textContent]; }));"""



def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--out", help="where the screenshots go (default: the work directory)")
    parser.add_argument("--docs", action="store_true", help="also copy the 1920x1080 screenshot to docs/dashboard.png")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ftms-dash.")
    out = args.out or work
    os.makedirs(out, exist_ok=True)
    children, ok, driver = [], False, None
    bridge = os.path.join(args.bin, "ftms-bridge")

    def spawn(argv, log, **kw):
        process = subprocess.Popen(argv, stdout=kw.pop("stdout", open(os.path.join(work, log), "w")), stderr=subprocess.STDOUT if "stdout" not in kw else open(os.path.join(work, log + ".err"), "w"), stdin=subprocess.DEVNULL, **kw)
        children.append(process)
        return process

    env = dict(os.environ)
    try:
        out_bus = subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "start", os.path.join(work, "bus")], check=True, capture_output=True, text=True).stdout
        bus = out_bus.strip().split("=", 1)[1]
        env["DBUS_SYSTEM_BUS_ADDRESS"] = bus
        spawn([os.path.join(args.bin, "ftms-sim"), "--bus", bus, "--bikes", "2", "--rowers", "1", "--rate", "4"], "sim.log")
        state, run = os.path.join(work, "state"), os.path.join(work, "run")
        os.makedirs(state, mode=0o700)
        os.makedirs(run, mode=0o700)
        metrics = os.path.join(run, "metrics.sock")
        broker = Broker(os.path.join(work, "broker"), lambda argv, log: spawn(argv, log))
        config = os.path.join(work, "config.toml")
        with open(config, "w") as f:
            f.write(daemon_config({
                "sessions": {"pause_after_idle": 6, "end_after_idle": 120, "minimum_movement": 3, "disconnect_grace": 3, "checkpoint_interval": 2},
                "state": {"directory": state},
                "metrics_socket": {"path": metrics},
                "control_socket": {"path": os.path.join(run, "control.sock")},
            }, extra=broker.mqtt_config("gym-a", keepalive=5)))
        daemon = spawn([bridge, "run", "--config", config], "daemon.log", env=env)
        wait_for("the metrics socket", lambda: os.path.exists(metrics), 60)
        dashboard = spawn([bridge, "dashboard", "--listen", "127.0.0.1:0", "--socket", metrics, "--gateway", "gym-a", "--title", "SolidFocus Demo Gym",
                           "--state-dir", state],
                          "dashboard.log", stdout=subprocess.PIPE, text=True)
        line = dashboard.stdout.readline().strip()
        if not line.startswith("dashboard: http://"):
            raise Failure(f"ftms-bridge dashboard did not start: {line!r}")
        url = line.split()[1]
        step(f"dashboard at {url}")
        # The dashboard the unit runs: its own process on the same socket.
        second = spawn([bridge, "dashboard", "--listen", "127.0.0.1:0", "--socket", metrics, "--gateway", "gym-a", "--state-dir", state],
                       "dashboard2.log", stdout=subprocess.PIPE, text=True)
        line = second.stdout.readline().strip()
        if not line.startswith("dashboard: http://"):
            raise Failure(f"the second ftms-bridge dashboard did not start: {line!r}")
        inside = line.split()[1]

        def mqtt_dashboard(log):
            process = spawn([bridge, "dashboard", "--listen", "127.0.0.1:0", "--mqtt", broker.url, "--mqtt-username", broker.user,
                             "--mqtt-password-file", broker.password_file, "--state-dir", state], log, stdout=subprocess.PIPE, text=True)
            line = process.stdout.readline().strip()
            if not line.startswith("dashboard: http://"):
                raise Failure(f"the MQTT dashboard did not start: {line!r}")
            return line.split()[1]
        from_broker = mqtt_dashboard("dashboard-mqtt.log")

        port = free_port()
        spawn(["chromedriver", f"--port={port}"], "chromedriver.log")
        driver = WebDriver(port)
        wait_for("chromedriver", lambda: _ready(driver), 30)
        driver.start(os.path.join(work, "profile"))
        driver.viewport(1920, 1080, False)

        # 1. A tile for every machine, each ready.
        driver.go(url)
        tiles = wait_for("three ready tiles", lambda: (lambda t: t if len(t) == 3 and all(x["state"] == "ready" for x in t) else None)(driver.js(TILES)), 90)
        names = sorted(t["machine"] for t in tiles)
        if [t["type"] for t in sorted(tiles, key=lambda t: t["machine"])] != ["bike", "bike", "rower"]:
            raise Failure(f"tile types: {tiles}")
        if {t["gateway"] for t in tiles} != {"gym-a"}:
            raise Failure(f"tiles not grouped under gym-a: {tiles}")
        step(f"tiles: {', '.join(names)}, all ready")

        # 2. Values change as the machines ride.
        first = {t["machine"]: (t["primary"], t["distance"]) for t in driver.js(TILES)}
        wait_for("values to change on every tile", lambda: all(
            (t["primary"], t["distance"]) != first[t["machine"]] for t in driver.js(TILES)), 60)
        step("values change on every tile")

        # 3. A reload is complete at once: its first render has every tile and sparkline.
        wait_for("sparklines", lambda: all(t["spark"] for t in driver.js(TILES)), 30)
        driver.go(url)
        render = wait_for("the first render after the reload", lambda: driver.js(
            "const d = window.dashboard; return d && d.firstRender != null ? {tiles: d.firstRenderTiles, sparks: d.firstRenderSparks, "
            "render: d.firstRender, load: performance.getEntriesByType('navigation')[0].responseEnd} : null"), 30)
        if render["tiles"] != 3 or render["sparks"] != 3:
            raise Failure(f"the reload's first render was not complete: {render}")
        step(f"reload complete at first render: {render['tiles']} tiles, {render['sparks']} sparklines, "
             f"first full render {render['render']:.0f} ms after navigation start (page received at {render['load']:.0f} ms)")

        # 4. A machine dropped for good shows disconnected.
        victim = next(t for t in driver.js(TILES) if t["type"] == "bike")["machine"]
        driver.js("""const tile = document.querySelector(`article.tile[data-machine="${arguments[0]}"]`);
            window.seenStates = [tile.dataset.state];
            new MutationObserver(() => window.seenStates.push(tile.dataset.state)).observe(tile, {attributes: true, attributeFilter: ['data-state']});""", victim)
        # Its session must outlast minimum_movement to be kept (step 7 looks for it).
        def session_seconds():
            floor = json.loads(urllib.request.urlopen(url.rstrip("/") + "/api/floor", timeout=10).read())
            tile = next((t for t in floor["tiles"] if t["name"] == victim), {})
            session = tile.get("session") or {}
            return (session.get("elapsedMs", 0) / 1000 + floor["now"] - session.get("at", floor["now"])) if session else 0
        wait_for(f"{victim}'s session to last 8 s", lambda: session_seconds() >= 8, 60)
        address = _address(work, victim)
        for method, params in (("SetConnectBehaviour", ["string:" + address, "string:abort", "uint32:0", "uint32:0"]),
                               ("DisconnectDevice", ["string:hci0", "string:" + address])):
            subprocess.run(["dbus-send", f"--bus={bus}", "--dest=org.bluez", "--print-reply", "/", f"org.bluez.Mock.{method}", *params],
                           check=True, capture_output=True, timeout=10)
        dropped_at = time.monotonic()
        wait_for(f"{victim} disconnected on the page", lambda: "disconnected" in (driver.js("return window.seenStates") or []), 30)
        step(f"{victim} dropped: the page showed disconnected {time.monotonic() - dropped_at:.1f} s after the link went")

        # The same floor from the second dashboard process.
        floor = json.loads(urllib.request.urlopen(inside.rstrip("/") + "/api/floor", timeout=10).read())
        if sorted(t["name"] for t in floor["tiles"]) != names or [g["name"] for g in floor["gateways"]] != ["gym-a"]:
            raise Failure(f"the second dashboard at {inside} shows {floor}")
        step(f"the second dashboard at {inside} shows the same {len(floor['tiles'])} machines")

        # 7. The dropped machine's session ends (disconnect_grace): the sessions page lists it,
        # its page has the plot from the stored series and the summary as stored for upload.
        sessions_url = url.rstrip("/") + "/sessions"
        ended = wait_for(f"{victim}'s session on the sessions page", lambda: next(
            (x for x in json.loads(urllib.request.urlopen(url.rstrip("/") + "/api/sessions", timeout=10).read()) if x.get("machine") == victim), None), 60)
        if not ended["plot"] or ended["type"] != "bike" or ended["upload"] not in ("pending", "uploaded", "dead"):
            raise Failure(f"the session listed: {ended}")
        driver.go(url)
        driver.js("document.getElementById('sessions-link').click()")
        wait_for("the sessions page from the floor's link", lambda: driver.js("return location.pathname") == "/sessions", 10)
        row = wait_for("the session's row", lambda: driver.js(
            "const r = document.querySelector(`tr[data-session='${arguments[0]}']`); return r ? {text: r.innerText, plot: r.dataset.plot} : null", ended["sessionId"]), 10)
        if victim not in row["text"] or row["plot"] != "true":
            raise Failure(f"the sessions page's row: {row}")
        driver.js("document.querySelector(`tr[data-session='${arguments[0]}'] a`).click()", ended["sessionId"])
        page = wait_for("the session's page with its plot loaded", lambda: driver.js(
            "const i = document.getElementById('plot'); const s = document.getElementById('summary');"
            "return i && i.complete && i.naturalWidth > 0 && s ? {width: i.naturalWidth, summary: s.textContent, path: location.pathname} : null"), 20)
        summary = urllib.request.urlopen(url.rstrip("/") + page["path"] + "/summary.json", timeout=10).read().decode()
        if page["summary"] != summary or json.loads(summary)["session_id"] != ended["sessionId"]:
            raise Failure(f"the page's summary {page['summary']!r} is not the stored {summary!r}")
        svg = ElementTree.fromstring(urllib.request.urlopen(url.rstrip("/") + page["path"] + "/plot.svg", timeout=10).read())
        panels = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "panel"]
        paths = [p for p in svg.iter("{http://www.w3.org/2000/svg}path")]
        if [g.get("data-series") for g in panels][:2] != ["power", "cadence"] or len(paths) != len(panels):
            raise Failure(f"the plot's panels: {[g.get('data-series') for g in panels]}, {len(paths)} paths")
        power = panels[0]
        if not (0 <= float(power.get("data-min")) <= float(power.get("data-max")) <= 3000) or float(power.get("data-max")) <= 0:
            raise Failure(f"the plot's power range {power.get('data-min')}...{power.get('data-max')}")
        driver.screenshot(os.path.join(out, "dashboard-session.png"))
        inside_sessions = json.loads(urllib.request.urlopen(inside.rstrip("/") + "/api/sessions", timeout=10).read())
        if ended["sessionId"] not in [x["sessionId"] for x in inside_sessions]:
            raise Failure(f"the second dashboard does not list {ended['sessionId']}: {inside_sessions}")
        step(f"{victim}'s session ({ended['duration']} s, {ended['distance']} m) on the sessions page, its plot "
             f"({', '.join(g.get('data-series') for g in panels)}; power {power.get('data-min')}...{power.get('data-max')} W) "
             f"and its summary as stored; the second dashboard lists it too")
        driver.go(url)

        # 5. The TV and the phone.
        latencies = wait_for("150 measured updates", lambda: (lambda l: l if len(l) >= 150 else None)(driver.js("return window.dashboard.latencies")), 90)
        driver.screenshot(os.path.join(out, "dashboard-1920x1080.png"))
        driver.viewport(390, 844, True)
        time.sleep(0.5)
        driver.screenshot(os.path.join(out, "dashboard-390x844.png"))
        driver.viewport(1920, 1080, False)

        ms = [1000 * x for x in latencies]
        step(f"notification-to-page latency over {len(ms)} updates: p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms")
        for name in ("dashboard-1920x1080.png", "dashboard-390x844.png"):
            size = os.path.getsize(os.path.join(out, name))
            if size < 10_000:
                raise Failure(f"{name} is only {size} bytes")
        if args.docs:
            shutil.copy(os.path.join(out, "dashboard-1920x1080.png"), os.path.join(ROOT, "docs", "dashboard.png"))
        step(f"screenshots in {out}")

        # 8. The floor from MQTT; the gateway dies, and its tiles show offline.
        driver.go(from_broker)
        # Every machine as the gateway says: the two riding ready, the one dropped in 4. not.
        wait_for("the MQTT floor: three tiles as the gateway says", lambda: (lambda t: len(t) == 3 and all(x["pill"] == x["state"] for x in t)
                 and [x["state"] for x in t].count("ready") == 2)([x for x in driver.js(TILES) if x["machine"] in names]), 60)
        # The floor's labels (docs/fleet.md): none without claims; a claim by gym-a, adopted, of
        # a machine whose home is gym-b (its presence says so) labels that machine's tile.
        holders = lambda: driver.js(HOLDERS)
        if any(holders().values()):
            raise Failure(f"holder labels without a floor: {holders()}")
        adopted, floor_env = names[0], broker.client_env("floor")
        adopted_address = _address(work, adopted).upper()
        for topic, message in (("ftms-bridge/floor/gateways/gym-b", {"gateway": "gym-b", "online": True, "home": [adopted], "free_slots": 0,
                                                                    "heard": {}, "holding": [], "releasing": [], "beat": 1}),
                               (f"ftms-bridge/floor/machines/{adopted_address}/claim", {"machine": adopted_address, "name": adopted, "holder": "gym-a",
                                                                                       "epoch": 1, "session_id": None, "reason": "adopted"})):
            subprocess.run(["mosquitto_pub", "-r", "-q", "1", "-t", topic, "-m", json.dumps(message)], env=floor_env, check=True, capture_output=True, timeout=10)
        wait_for(f"{adopted}'s tile held by gym-a, adopted from gym-b", lambda: holders().get(adopted) == "held by gym-a \u00b7 adopted from gym-b", 30)
        step(f"floor claim: {adopted}'s tile says {holders()[adopted]!r}, the others nothing")
        daemon.kill()
        killed_at = time.monotonic()
        def all_offline(tiles):
            mine = [t for t in tiles if t["machine"] in names]
            return len(mine) == 3 and all(t["pill"] == "offline" and t["stale"] for t in mine)
        wait_for("every tile of the dead gateway offline on the open page", lambda: all_offline(driver.js(TILES)), 30)
        step(f"gateway killed: every tile showed offline on the MQTT floor {time.monotonic() - killed_at:.1f} s later")
        driver.go(from_broker)
        wait_for("every tile offline after a reload", lambda: all_offline(driver.js(TILES)), 30)
        late = mqtt_dashboard("dashboard-mqtt-late.log")
        floor = wait_for("the late dashboard's floor", lambda: (lambda f: f if len(f["tiles"]) == 3 and f["gateways"] else None)(
            json.loads(urllib.request.urlopen(late.rstrip("/") + "/api/floor", timeout=10).read())), 30)
        if [g["online"] for g in floor["gateways"]] != [False]:
            raise Failure(f"a dashboard started after the gateway died shows it {floor['gateways']}")
        driver.go(late)
        wait_for("every tile offline in the late dashboard", lambda: all_offline(driver.js(TILES)), 30)
        step("after a reload, and in a dashboard started after the gateway died (its retained offline and ready states), every tile shows offline")
        ok = True
    except Failure as failure:
        print(f"dashboard-browser: FAILED: {failure} (logs in {work})", file=sys.stderr)
    finally:
        if driver:
            driver.quit()
        stop_processes(children, 10)
        subprocess.run([os.path.join(ROOT, "scripts", "test-bus.sh"), "stop", os.path.join(work, "bus")], capture_output=True)
        if ok and not args.keep and out != work:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def _ready(driver):
    try:
        return driver.call("GET", "/status", timeout=2).get("ready")
    except Exception:
        return False


def _address(work, machine):
    """The simulator prints `ready SF-Bike-0001=C0:5F:… …`."""
    for line in open(os.path.join(work, "sim.log")):
        for word in line.split():
            if word.startswith(machine + "="):
                return word.split("=", 1)[1]
    raise Failure(f"no address for {machine} in sim.log")


if __name__ == "__main__":
    sys.exit(main())
