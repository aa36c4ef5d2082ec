"""A broker watcher for scripts: `mosquitto_sub -F '%U %t %p'` on some topic filters, keeping every
message with its receive time (seconds since 1970, the subscriber's clock)."""
import threading


class Subscriber(threading.Thread):
    def __init__(self, broker, filters, spawn_pipe, client_id="watch"):
        super().__init__(daemon=True)
        # A persistent session (-c, fixed id, QoS 1): the broker keeps QoS 1 messages for it
        # while it reconnects, as docs/mqtt.md tells integrators to do.
        argv = ["mosquitto_sub", "-c", "-i", client_id, "-q", "1", "-F", "%U %t %p"]
        for topic in filters:
            argv += ["-t", topic]
        self.process = spawn_pipe(argv, broker.client_env(client_id))
        self.messages, self.lock = [], threading.Lock()

    def run(self):
        for line in self.process.stdout:
            received, topic, payload = (line.rstrip("\n").split(" ", 2) + ["", ""])[:3]
            with self.lock:
                self.messages.append((float(received), topic, payload))

    def on(self, topic, since=0):
        with self.lock:
            return [(t, p) for (t, top, p) in self.messages[since:] if top == topic]

    def matching(self, predicate):
        with self.lock:
            return [(t, top, p) for (t, top, p) in self.messages if predicate(top)]

    def last(self, topic):
        found = self.on(topic)
        return found[-1][1] if found else None
