"""The reference backend (`ftms-backend`) for whole-process scripts: started on a loopback port, a
gateway's state directory logged in to it, and what it holds counted through its admin API."""
import json, os, subprocess, urllib.request


class ReferenceBackend:
    """`ftms-backend --port 0 --exit-with-stdin`: it goes away with us even if we are killed."""

    def __init__(self, binary_dir, work):
        self.work = work
        self.process = subprocess.Popen([os.path.join(binary_dir, "ftms-backend"), "--port", "0", "--exit-with-stdin"],
                                        stdout=subprocess.PIPE, stderr=open(os.path.join(work, "backend.log"), "w"),
                                        stdin=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().split()
        if len(line) != 2 or line[0] != "listening":
            self.process.kill()
            raise RuntimeError(f"ftms-backend did not start: {line}")
        self.url = line[1]

    def login(self, bridge, state, subject="bench"):
        """Logs the gateway whose state directory is `state` in as the test user `subject` (id token in a 0600 file, never
        on the command line)."""
        token_file = os.path.join(self.work, "id-token")
        with open(os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(f"test:{subject}\n")
        result = subprocess.run([bridge, "login", "--state-dir", state, "--backend", self.url, "--provider", "google",
                                 "--id-token-file", token_file], capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"login: {result.stderr.strip()}")

    def sessions(self):
        """The sessions the backend holds (`/_admin/sessions`), each with how often it was received."""
        with urllib.request.urlopen(f"{self.url}/_admin/sessions", timeout=10) as answer:
            return json.load(answer)["sessions"]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
