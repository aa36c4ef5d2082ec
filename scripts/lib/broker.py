"""A private mosquitto for scripts (as Sources/MQTTTesting's PrivateBroker is for the Swift tests):
a free loopback port, a password file (no anonymous clients), logins for mosquitto_sub/pub in
their config files (XDG_CONFIG_HOME), so no password is ever on a command line."""
import os, socket, subprocess, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_secret(path, text):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)


class Broker:
    def __init__(self, directory, spawn, user="gateway", password=None, persistent=False, queue_qos0=False, autosave=None):
        """`spawn(argv, log_name)` starts and tracks a process (the caller stops it). `persistent`:
        the broker saves retained messages and persistent sessions when it stops, and loads them
        when it starts. `queue_qos0`: a persistent session that is away keeps its QoS 0 messages
        too (samples), so a watcher sees what was sent while it could not be there. `autosave`:
        a persistent broker also saves every that many seconds, so a crash (``crash``) loses
        at most that much."""
        self.dir, self.spawn = directory, spawn
        os.makedirs(self.dir, mode=0o700, exist_ok=True)
        self.port, self.user = free_port(), user
        self.password = password or f"pw-{os.urandom(6).hex()}"
        passwd = os.path.join(self.dir, "passwd")
        write_secret(passwd, f"{user}:{self.password}\n")
        subprocess.run(["mosquitto_passwd", "-U", passwd], check=True, capture_output=True)
        self.password_file = os.path.join(self.dir, "gateway-password")
        write_secret(self.password_file, self.password + "\n")
        config = os.path.join(self.dir, "mosquitto.conf")
        with open(config, "w") as f:
            if os.geteuid() == 0:
                f.write("user root\n")  # as root, mosquitto would drop to `mosquitto` and not read our 0600 files
            if queue_qos0:
                # Mosquitto 2.0.11 (Debian 12) with queue_qos0_messages drops QoS 1 messages queued
                # for an away persistent session once its in-flight window (20) is full of a mix
                # of QoS 0 and 1: a watcher reconnecting after a broker restart missed session
                # events. No in-flight limit, no loss (docs/mqtt.md).
                f.write("max_inflight_messages 0\n")
            if autosave:
                f.write(f"autosave_interval {autosave}\n")
            f.write(f"persistence {'true' if persistent else 'false'}\nqueue_qos0_messages {'true' if queue_qos0 else 'false'}\n"
                    f"persistence_location {self.dir}/\nlog_dest file {self.dir}/mosquitto.log\nlog_type all\nallow_anonymous false\n"
                    f"password_file {passwd}\nlistener {self.port} 127.0.0.1\nsys_interval 1\n")
        self.config = config
        self.start()

    def start(self):
        self.process = self.spawn(["mosquitto", "-c", self.config], "mosquitto.out")
        deadline = time.monotonic() + 10
        while not self.accepts():
            if time.monotonic() > deadline:
                raise OSError(f"mosquitto did not listen on 127.0.0.1:{self.port}")
            time.sleep(0.02)

    def stop(self):
        """SIGTERM, as `systemctl stop mosquitto`: a persistent broker saves its state."""
        self.process.terminate()
        self.process.wait(10)

    def crash(self):
        """SIGKILL, as a broker host losing power: unlike a stop, which publishes every connected
        client's last will (mosquitto 2.0.11 does), no will is published, and only what the
        last autosave kept comes back."""
        self.process.kill()
        self.process.wait(10)

    @property
    def url(self):
        return f"mqtt://127.0.0.1:{self.port}"

    def accepts(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            return True
        except OSError:
            return False

    def client_env(self, name):
        """An environment whose mosquitto_sub/mosquitto_pub config file holds the login."""
        home = os.path.join(self.dir, f"client-{name}")
        os.makedirs(home, mode=0o700, exist_ok=True)
        options = f"-h 127.0.0.1\n-p {self.port}\n-u {self.user}\n-P {self.password}\n"
        write_secret(os.path.join(home, "mosquitto_sub"), options)
        write_secret(os.path.join(home, "mosquitto_pub"), options)
        return dict(os.environ, XDG_CONFIG_HOME=home)

    def sys_value(self, topic):
        """One $SYS value (sys_interval 1), e.g. `$SYS/broker/messages/received`."""
        out = subprocess.run(["mosquitto_sub", "-C", "1", "-W", "5", "-t", topic], env=self.client_env("sys"), capture_output=True, text=True).stdout
        return out.strip()

    def mqtt_config(self, gateway, keepalive=30, sample_rate=1.0, via=None):
        """The [mqtt] section of a daemon config for this broker (`via`: another broker URL that
        leads to it, such as a CutProxy's)."""
        return (f"[mqtt]\nenabled = true\nbroker = \"{via or self.url}\"\ngateway = \"{gateway}\"\nusername = \"{self.user}\"\n"
                f"password_file = \"{self.password_file}\"\nkeepalive = {keepalive}\nsample_rate = {sample_rate}\n")
