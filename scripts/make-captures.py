#!/usr/bin/env python3
"""Writes the replay regression corpus in captures/ (contract §8, gpsd's design).

Each scenario below is a small, readable story: what a rider did and when (stretches of riding
or rowing with their cadence, speed, power, stroke rate and heart rate), what the machine is and
how it talks (its Indoor Bike or Rower Data layout, split or truncated records, its own counters),
and what happened to the link and the console (disconnects, Status events, a counter reset).

From that story this script writes two things, independently of each other's code paths and of
the Swift code:

1. the capture: every notification the machine would have sent, at the time it arrived, as an
   .ftmscap file (or a btmon btsnoop file, with the GATT discovery the handle map comes from);
2. the expected result, worked out analytically from the story and contract §5's rules: the sessions
   kept and dropped, and for each kept one its start, end, duration, distance, energy and how
   they were obtained. Each expected file says how every number was derived.

The golden files (the exact `ftms-bridge replay --json` output) are not written here: they come
from the binary, through scripts/regen-captures.sh.

Python 3 standard library only. The output is byte-for-byte deterministic (replay seeds session
ids from the capture's bytes), so running it twice changes nothing.

    scripts/make-captures.py                 # every scenario into captures/
    scripts/make-captures.py --out DIR NAME  # some scenarios elsewhere
    scripts/make-captures.py --list
"""

import argparse
import datetime
import json
import math
import pathlib
import struct
import sys
from dataclasses import dataclass, field
from fractions import Fraction

# contract §5's defaults: the contract the expected results are worked out from.
PAUSE_AFTER_IDLE = 6
END_AFTER_IDLE = 120
DISCONNECT_GRACE = 60
MINIMUM_MOVEMENT = 60
EFFICIENCY = Fraction(25, 100)
JOULES_PER_KCAL = 4184


def F(value):
    """Exact arithmetic for times and rates given as decimals."""
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


# ---------------------------------------------------------------------------------------------
# The story: the rider, the console and the link.


@dataclass
class Effort:
    """A stretch of riding or rowing at constant inputs, from `start` to `end` seconds."""

    start: Fraction
    end: Fraction
    rpm: Fraction = Fraction(0)
    kmh: Fraction = Fraction(0)
    watts: int = 0
    spm: Fraction = Fraction(0)
    bpm: int = 0

    @property
    def moving(self):
        return self.rpm > 0 or self.kmh > 0 or self.watts > 0 or self.spm > 0


def ride(start, end, rpm, kmh, watts, bpm=0):
    return Effort(F(start), F(end), rpm=F(rpm), kmh=F(kmh), watts=watts, bpm=bpm)


def row(start, end, spm, watts, bpm=0):
    return Effort(F(start), F(end), spm=F(spm), watts=watts, bpm=bpm)


@dataclass
class Status:
    """A Fitness Machine Status notification (0x2ADA) at `at` seconds."""

    at: Fraction
    hex: str
    meaning: str


def status_started(at):
    return Status(F(at), "04", "started or resumed by the user")


def status_paused(at):
    return Status(F(at), "0202", "paused by the user")


def status_stopped(at):
    return Status(F(at), "0201", "stopped by the user")


@dataclass
class LinkDown:
    """The BLE link is down from `at` to `until`; the rider may carry on regardless."""

    at: Fraction
    until: Fraction


def link_down(at, until):
    return LinkDown(F(at), F(until))


@dataclass
class Machine:
    name: str
    address: str
    manufacturer: str
    model: str
    type: str  # "bike" or "rower"
    style: str  # how it talks: see Notifier
    rate: Fraction = Fraction(1)  # data notifications per second
    phase: Fraction = Fraction(1, 4)  # the first data notification's offset in each period
    latency_ms: tuple = (8, 60)  # notification delay range, drawn per notification
    energy_model: str = "bike-console"  # see Counters
    resistance: int = 80
    resistance_range: str = "0a00c8000a00"


@dataclass
class Scenario:
    name: str
    description: str
    machine: Machine
    start: str  # the capture's wall-clock t = 0
    end: Fraction  # the capture's last event
    efforts: list
    statuses: list = field(default_factory=list)
    links: list = field(default_factory=list)
    resets: list = field(default_factory=list)  # console counter resets (a new rider)
    # The console's counters at t = 0 (running totals since it was switched on); a reset zeroes them.
    counters_at_start: dict = field(default_factory=dict)
    # Instants after which the machine sends one record of zeros instead of the real one (a glitch).
    glitches: list = field(default_factory=list)
    container: str = "ftmscap"
    seed: int = 1
    # A disagreement between this analysis and ftms-bridge that is understood and reported,
    # but not yet fixed: the corpus test marks these comparisons as known issues.
    known_issue: dict = None


# ---------------------------------------------------------------------------------------------
# The machine's own arithmetic: counters as it keeps them.

CONCEPT2_KCAL_PER_HOUR_PER_WATT = Fraction(8604, 10000) * 4  # 4 × 0.8604 kcal/h per watt
CONCEPT2_RESTING_KCAL_PER_HOUR = 300


def speed_mps(machine, effort):
    """Metres per second the machine counts for an effort."""
    if machine.type == "bike":
        return effort.kmh / Fraction(36, 10)
    # Rowers derive boat speed from power (Concept2's P = 2.80 v³).
    return (effort.watts / 2.8) ** (1 / 3) if effort.spm > 0 and effort.watts > 0 else 0.0


def kcal_per_second(machine, effort):
    """The console's own energy formula (deliberately not ftms-bridge's 25 % integration, so a
    summary that took the wrong method shows it)."""
    if not effort.moving:
        return Fraction(0)
    if machine.energy_model == "bike-console":
        # The SF-Bike console assumes 24 % gross efficiency.
        return Fraction(effort.watts) / JOULES_PER_KCAL / Fraction(24, 100)
    # Rowers: Concept2's published formula, kcal/h = 4 × 0.8604 × W + 300, while rowing.
    return (CONCEPT2_KCAL_PER_HOUR_PER_WATT * effort.watts + CONCEPT2_RESTING_KCAL_PER_HOUR) / 3600


def overlap(start, end, low, high):
    return max(Fraction(0), min(end, high) - max(start, low)) if high > low else Fraction(0)


class Counters:
    """The console's accumulators at any instant: since power-on, or since the last reset."""

    def __init__(self, scenario):
        self.s = scenario

    def origin(self, t):
        return max([Fraction(0)] + [r for r in self.s.resets if r <= t])

    def initial(self, name, t):
        return F(self.s.counters_at_start.get(name, 0)) if self.origin(t) == 0 else Fraction(0)

    def integral(self, rate, t):
        low = self.origin(t)
        return sum((rate(e) * overlap(e.start, e.end, low, t) for e in self.s.efforts), Fraction(0))

    def distance(self, t):
        return self.initial("distance", t) + self.integral(lambda e: speed_mps(self.s.machine, e), t)

    def energy(self, t):
        return self.initial("energy", t) + self.integral(lambda e: kcal_per_second(self.s.machine, e), t)

    def strokes(self, t):
        return self.initial("strokes", t) + self.integral(lambda e: e.spm / 60, t)

    def elapsed(self, t):
        return self.initial("elapsed", t) + t - self.origin(t)

    def power_sum(self, t):
        """∫ P dt since the origin, for the console's average power."""
        return self.integral(lambda e: Fraction(e.watts), t)


def effort_at(scenario, t):
    for e in scenario.efforts:
        if e.start <= t < e.end:
            return e
    return Effort(t, t)


# ---------------------------------------------------------------------------------------------
# FTMS wire encoding (FTMS 1.0 Tables 4.9 and 4.14), written from the spec's tables.


def u8(v):
    return struct.pack("<B", max(0, min(0xFF, int(v))))


def u16(v):
    return struct.pack("<H", max(0, min(0xFFFF, int(v))))


def s16(v):
    return struct.pack("<h", max(-0x8000, min(0x7FFF, int(v))))


def u24(v):
    return struct.pack("<I", max(0, min(0xFFFFFF, int(v))))[:3]


def floor(x):
    return math.floor(x)


def wrap16(x):
    """A uint16 counter as the console sends it: its low 16 bits (it wraps, it does not stick)."""
    return floor(x) % 0x10000


def wrap24(x):
    return floor(x) % 0x1000000


class Notifier:
    """Turns the story into the data notifications one machine style sends.

    Styles:
      sf-bike      Indoor Bike Data 0x0B54 in one notification: speed, cadence, distance, power,
                   energy triplet, heart rate, elapsed time (19 bytes).
      ic4          0x0244, Schwinn IC4's layout: speed, cadence, power, heart rate. No counters.
      stages-split three notifications per record in the spec's order: distance + energy
                   (0x0111), heart rate + elapsed (0x0A01), then speed, cadence, power with More
                   Data clear (0x0044), which closes the record.
      matrix-truncated
                   flags 0x1BFE promise 29 bytes (every field but MET); the default ATT MTU of 23
                   cuts each notification to 20, inside Total Energy.
      full-bike    0x1FFE: every Indoor Bike Data field (30 bytes; needs ATT MTU 33 or more).
      sf-rower     Rower Data 0x0B2C in one notification: stroke rate and count, distance,
                   pace, power, energy triplet, heart rate, elapsed time (20 bytes).
      viking-split First Degree Fitness Viking Pro V's order (docs/ftms.md P8): a stroke block with More
                   Data clear (0x00F8) once per stroke, an energy block (0x0101) 60 ms after it,
                   and a distance / heart rate / elapsed block (0x0A05) once a second.
    """

    def __init__(self, scenario):
        self.s = scenario
        self.m = scenario.machine
        self.c = Counters(scenario)

    def energy_fields(self, t, e):
        per_hour = kcal_per_second(self.m, e) * 3600
        return u16(wrap16(self.c.energy(t))) + u16(round(per_hour)) + u8(round(per_hour / 60))

    def average_power(self, t):
        elapsed = t - self.c.origin(t)
        return round(self.c.power_sum(t) / elapsed) if elapsed > 0 else 0

    def bike_record(self, t, flags):
        """Every Indoor Bike Data field the flags call for, in wire order."""
        e = effort_at(self.s, t)
        elapsed = t - self.c.origin(t)
        ridden = self.c.distance(t) - self.c.initial("distance", t)
        average_speed = ridden / elapsed * Fraction(36, 10) if elapsed > 0 else 0
        fields = [
            (0, lambda: u16(round(e.kmh * 100))),  # bit 0 is inverted: present when clear
            (1, lambda: u16(round(average_speed * 100))),
            (2, lambda: u16(round(e.rpm * 2))),
            (3, lambda: u16(round(e.rpm * 2))),
            (4, lambda: u24(wrap24(self.c.distance(t)))),
            (5, lambda: s16(self.m.resistance)),
            (6, lambda: s16(e.watts)),
            (7, lambda: s16(self.average_power(t))),
            (8, lambda: self.energy_fields(t, e)),
            (9, lambda: u8(e.bpm)),
            (10, lambda: u8(10 + e.watts // 5)),
            (11, lambda: u16(wrap16(self.c.elapsed(t)))),
            (12, lambda: u16(0)),
        ]
        return self.pack(flags, fields)

    def rower_record(self, t, flags, strokes=None):
        e = effort_at(self.s, t)
        v = speed_mps(self.m, e)
        pace = round(500 / v) if v else 0
        stroke_count = wrap16(self.c.strokes(t)) if strokes is None else strokes
        fields = [
            (0, lambda: u8(round(e.spm * 2)) + u16(stroke_count)),
            (1, lambda: u8(round(e.spm * 2))),
            (2, lambda: u24(wrap24(self.c.distance(t)))),
            (3, lambda: u16(pace)),
            (4, lambda: u16(0)),
            (5, lambda: s16(e.watts)),
            (6, lambda: s16(self.average_power(t))),
            (7, lambda: s16(2)),
            (8, lambda: self.energy_fields(t, e)),
            (9, lambda: u8(e.bpm)),
            (10, lambda: u8(10 + e.watts // 5)),
            (11, lambda: u16(wrap16(self.c.elapsed(t)))),
            (12, lambda: u16(0)),
        ]
        return self.pack(flags, fields)

    @staticmethod
    def pack(flags, fields):
        """The flags, then each field whose bit says it is present, in bit order. Bit 0 is the
        inverted one: its fields are present when it is clear (More Data)."""
        out = u16(flags)
        for bit, encode in fields:
            if bool(flags >> bit & 1) != (bit == 0):
                out += encode()
        return out

    def sample_times(self):
        period = 1 / self.m.rate
        t = self.m.phase
        while t <= self.s.end:
            yield t
            t += period

    def notifications(self):
        """(machine time, uuid, bytes) for every data notification, link state ignored."""
        uuid = "2ad2" if self.m.type == "bike" else "2ad1"
        style = self.m.style
        if style == "viking-split":
            yield from self.viking()
            return
        glitched = {min((t for t in self.sample_times() if t >= g), default=None) for g in self.s.glitches}
        for t in self.sample_times():
            if t in glitched:
                record = self.bike_record(t, 0x0B54) if style == "sf-bike" else None
                if record is None:
                    raise ValueError("glitches are modelled for the sf-bike style only")
                yield t, uuid, record[:2] + bytes(len(record) - 2)
            elif style == "sf-bike":
                yield t, uuid, self.bike_record(t, 0x0B54)
            elif style == "ic4":
                yield t, uuid, self.bike_record(t, 0x0244)
            elif style == "full-bike":
                yield t, uuid, self.bike_record(t, 0x1FFE)
            elif style == "matrix-truncated":
                yield t, uuid, self.bike_record(t, 0x1BFE)[:20]
            elif style == "stages-split":
                yield t, uuid, self.bike_record(t, 0x0111)
                yield t + Fraction(15, 1000), uuid, self.bike_record(t, 0x0A01)
                yield t + Fraction(30, 1000), uuid, self.bike_record(t, 0x0044)
            elif style == "sf-rower":
                yield t, uuid, self.rower_record(t, 0x0B2C)
            else:
                raise ValueError(f"unknown machine style {style}")

    def viking(self):
        # The distance block, once a second whatever the rider does.
        for t in self.sample_times():
            yield t, "2ad1", self.rower_record(t, 0x0A05)
        # One stroke block per stroke, the energy block 60 ms behind it.
        count = 0
        for e in self.s.efforts:
            if e.spm <= 0:
                continue
            interval = 60 / e.spm
            t = e.start
            while t < e.end:
                count += 1
                yield t, "2ad1", self.rower_record(t, 0x00F8, strokes=count)
                yield t + Fraction(60, 1000), "2ad1", self.rower_record(t, 0x0101)
                t += interval

    def delivered(self):
        """Which counters and instantaneous values reach the gateway whole, worked out from the
        style's layout and byte budget (not from any decoder)."""
        always = {
            "sf-bike": {"distance", "energy", "speed", "power"},
            "ic4": {"speed", "power"},
            "stages-split": {"distance", "energy", "speed", "power"},
            "full-bike": {"distance", "energy", "speed", "power"},
            "sf-rower": {"distance", "energy", "power"},
            "viking-split": {"distance", "energy", "power"},
        }
        if self.m.style == "matrix-truncated":
            # flags 2, speed 2, avg speed 2, cadence 2, avg cadence 2, distance 3, resistance 2,
            # power 2, avg power 2 = 19 bytes; Total Energy would need bytes 20–21 of 20.
            return {"distance", "speed", "power"}
        return always[self.m.style]


# ---------------------------------------------------------------------------------------------
# Timing: notification latency, deterministic per scenario.


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def between(self, low, high):
        return low + self.next() % (high - low + 1)


def microseconds(t):
    return round(t * 1_000_000)


# ---------------------------------------------------------------------------------------------
# The link-level event list shared by both containers.


@dataclass
class Event:
    us: int  # microseconds since the capture's start
    kind: str  # notify, indicate, read, write, connected, disconnected
    uuid: str = ""
    value: bytes = b""


FEATURE_BITS = {"cadence": 1, "distance": 2, "resistance": 7, "energy": 9, "heart_rate": 10, "elapsed_time": 12,
                "power": 14}


def feature_bytes(machine):
    """Fitness Machine Feature (0x2ACC): what the console says it measures (FTMS Table 4.3), then
    its target settings (resistance and power). A truncating machine still claims its energy."""
    measures = ["power", "heart_rate", "elapsed_time", "resistance"] + (["cadence"] if machine.type == "bike" else [])
    if machine.style != "ic4":
        measures += ["distance", "energy"]
    return struct.pack("<II", sum(1 << FEATURE_BITS[name] for name in measures), 0b1100)


def link_events(scenario):
    """Every event on the link, in time order: the connect sequence, data, Status, drops."""
    machine = scenario.machine
    notifier = Notifier(scenario)
    random = SplitMix64(scenario.seed)
    events = []

    def up_at(t):
        return all(not (d.at <= t < d.until) for d in scenario.links)

    def connect(t, first):
        us = microseconds(t)
        events.append(Event(us, "connected"))
        # A btsnoop capture shows GATT discovery first (written with the container), about 1 s.
        us += 1_100_000 if first and scenario.container == "btsnoop" else 0
        if first:
            events.append(Event(us + 150_000, "read", "2a29", machine.manufacturer.encode()))
            events.append(Event(us + 200_000, "read", "2a24", machine.model.encode()))
            events.append(Event(us + 250_000, "read", "2acc", feature_bytes(machine)))
            if machine.type == "bike":
                events.append(Event(us + 300_000, "read", "2ad6", bytes.fromhex(machine.resistance_range)))
        events.append(Event(us + 350_000, "write", "2ad9", b"\x00"))
        events.append(Event(us + 400_000, "indicate", "2ad9", bytes.fromhex("800001")))
        return Fraction(us + 500_000, 1_000_000)  # data flows once the sequence is done

    ready = connect(Fraction(2, 5), True)
    ready_after = {Fraction(0): ready}
    for d in scenario.links:
        events.append(Event(microseconds(d.at), "disconnected"))
        if d.until < scenario.end:
            ready_after[d.until] = connect(d.until, False)

    def flowing(t):
        opened = max(k for k in ready_after if k <= t)
        return up_at(t) and t >= ready_after[opened]

    for t, uuid, value in notifier.notifications():
        arrival = t + Fraction(random.between(*machine.latency_ms), 1000)
        # Sent while the link was up and received before it dropped or the capture ended.
        if flowing(t) and up_at(arrival) and arrival < scenario.end:
            events.append(Event(microseconds(arrival), "notify", uuid, value))
    for s in scenario.statuses:
        events.append(Event(microseconds(s.at), "notify", "2ada", bytes.fromhex(s.hex)))
    if up_at(scenario.end):
        events.append(Event(microseconds(scenario.end), "disconnected"))
    events.sort(key=lambda e: e.us)  # stable: simultaneous events keep the story's order
    return events


# ---------------------------------------------------------------------------------------------
# Containers.


def iso(start, seconds):
    base = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))
    instant = base + datetime.timedelta(microseconds=microseconds(seconds))
    text = instant.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{instant.microsecond:06d}".rstrip("0")[:3].rstrip("0")
    return text + ("." + fraction if fraction else "") + "Z"


def decimal_seconds(us):
    whole, part = divmod(us, 1_000_000)
    return f"{whole}.{part:06d}".rstrip("0").rstrip(".") if part else str(whole)


def write_ftmscap(scenario, events, path):
    m = scenario.machine
    header = {
        "format": "ftmscap",
        "version": 1,
        "start": scenario.start,
        "machine": {"name": m.name, "address": m.address, "manufacturer": m.manufacturer, "model": m.model,
                    "type": m.type, "feature": feature_bytes(m).hex()},
    }
    lines = [
        f"# {scenario.name}: {scenario.description}",
        f"# Machine: {m.name} ({m.manufacturer} {m.model}), style {m.style}, {m.rate} Hz.",
        "# Written by scripts/make-captures.py from the scenario of the same name; change it there.",
        json.dumps(header, separators=(",", ":")),
    ]
    for e in events:
        if e.kind in ("connected", "disconnected"):
            lines.append(f'{{"t":{decimal_seconds(e.us)},"event":"{e.kind}"}}')
        else:
            lines.append(f'{{"t":{decimal_seconds(e.us)},"uuid":"{e.uuid}","op":"{e.kind}","hex":"{e.value.hex()}"}}')
    path.write_text("\n".join(lines) + "\n")


class Btmon:
    """A btsnoop file as `btmon -w` writes it: datalink 2001 (Linux monitor), each record's
    flags holding the controller index (high 16 bits) and the monitor opcode (low 16)."""

    NEW_INDEX, COMMAND, EVENT, ACL_TX, ACL_RX, OPEN_INDEX, INDEX_INFO = 0, 2, 3, 4, 5, 8, 10
    # btsnoop counts microseconds from midnight, 1 January of year 0.
    EPOCH_OFFSET = 0x00DCDDB30F2F8000
    ACL_BUFFER = 27  # the controller's LE ACL data length: longer PDUs are fragmented

    def __init__(self, start_unix_us):
        self.origin = self.EPOCH_OFFSET + start_unix_us
        self.out = bytearray(b"btsnoop\x00" + struct.pack(">II", 1, 2001))

    def record(self, us, opcode, payload):
        flags = (0 << 16) | opcode
        self.out += struct.pack(">IIIIq", len(payload), len(payload), flags, 0, self.origin + us) + payload

    def command(self, us, opcode, parameters):
        self.record(us, self.COMMAND, struct.pack("<HB", opcode, len(parameters)) + parameters)

    def event(self, us, code, parameters):
        self.record(us, self.EVENT, bytes([code, len(parameters)]) + parameters)

    def att(self, us, handle, pdu, to_host):
        """One ATT PDU in an L2CAP frame on CID 4, cut into ACL fragments."""
        l2cap = struct.pack("<HH", len(pdu), 0x0004) + pdu
        first = True
        for offset in range(0, len(l2cap), self.ACL_BUFFER):
            chunk = l2cap[offset:offset + self.ACL_BUFFER]
            boundary = (0b10 if to_host else 0b00) if first else 0b01
            header = struct.pack("<HH", handle | boundary << 12, len(chunk))
            self.record(us, self.ACL_RX if to_host else self.ACL_TX, header + chunk)
            first = False


def address_bytes(address):
    return bytes(int(x, 16) for x in reversed(address.split(":")))


# The GATT database the btsnoop machine exposes: (declaration, value handle, properties, uuid,
# CCCD handle or None), grouped by service.
GATT = [
    (0x0001, 0x0003, 0x1800, [(0x0002, 0x0003, 0x02, 0x2A00, None)]),
    (0x0004, 0x0008, 0x180A, [(0x0005, 0x0006, 0x02, 0x2A29, None), (0x0007, 0x0008, 0x02, 0x2A24, None)]),
    (0x0009, 0x0016, 0x1826, [
        (0x000A, 0x000B, 0x02, 0x2ACC, None),
        (0x000C, 0x000D, 0x10, 0x2AD2, 0x000E),
        (0x000F, 0x0010, 0x02, 0x2AD6, None),
        (0x0011, 0x0012, 0x28, 0x2AD9, 0x0013),
        (0x0014, 0x0015, 0x10, 0x2ADA, 0x0016),
    ]),
]
VALUE_HANDLE = {uuid: value for _, _, _, chars in GATT for _, value, _, uuid, _ in chars}


def write_btsnoop(scenario, events, path):
    m = scenario.machine
    start = datetime.datetime.fromisoformat(scenario.start.replace("Z", "+00:00"))
    b = Btmon(round(start.timestamp() * 1_000_000))
    peer = address_bytes(m.address)
    handle = 0x0040
    b.record(0, Btmon.NEW_INDEX, bytes([0x00, 0x01]) + address_bytes("00:1A:7D:DA:71:13") + b"hci0\x00\x00\x00\x00")
    b.record(0, Btmon.OPEN_INDEX, b"")
    b.record(0, Btmon.INDEX_INFO, address_bytes("00:1A:7D:DA:71:13") + struct.pack("<H", 10))
    b.command(20_000, 0x200C, bytes([0x01, 0x00]))  # LE Set Scan Enable
    b.event(21_000, 0x0E, bytes([0x01]) + struct.pack("<H", 0x200C) + b"\x00")
    name = m.name.encode()
    data = bytes([2, 0x01, 0x06, len(name) + 1, 0x09]) + name + bytes([5, 0x03, 0x26, 0x18, 0x01, 0xFE])
    data += bytes([6, 0x16, 0x26, 0x18, 0x01, 0x20, 0x00])
    b.event(120_000, 0x3E, bytes([0x02, 0x01, 0x00, 0x01]) + peer + bytes([len(data)]) + data + bytes([0xC4]))
    b.command(200_000, 0x200C, bytes([0x00, 0x00]))
    b.command(210_000, 0x200D, bytes(25))  # LE Create Connection (parameters not read back)
    b.event(211_000, 0x0F, bytes([0x00, 0x01]) + struct.pack("<H", 0x200D))

    def connected(us):
        parameters = bytes([0x01, 0x00]) + struct.pack("<H", handle) + bytes([0x00, 0x01]) + peer
        b.event(us, 0x3E, parameters + struct.pack("<HHHB", 0x0018, 0, 0x0048, 0))

    def exchange(us, request, response):
        b.att(us, handle, request, False)
        b.att(us + 30_000, handle, response, True)
        return us + 45_000

    def discovery(us):
        us = exchange(us, bytes([0x02]) + struct.pack("<H", 247), bytes([0x03]) + struct.pack("<H", 65))
        services = b"".join(struct.pack("<HHH", s, e, u) for s, e, u, _ in GATT)
        us = exchange(us, bytes([0x10]) + struct.pack("<HHH", 0x0001, 0xFFFF, 0x2800), bytes([0x11, 6]) + services)
        us = exchange(us, bytes([0x10]) + struct.pack("<HHH", 0x0017, 0xFFFF, 0x2800),
                      bytes([0x01, 0x10]) + struct.pack("<H", 0x0017) + bytes([0x0A]))
        for first, last, _, chars in GATT:
            declarations = b"".join(struct.pack("<HBHH", d, p, v, u) for d, v, p, u, _ in chars)
            us = exchange(us, bytes([0x08]) + struct.pack("<HHH", first, last, 0x2803), bytes([0x09, 7]) + declarations)
            for _, value, _, _, cccd in chars:
                if cccd:
                    us = exchange(us, bytes([0x04]) + struct.pack("<HH", cccd, cccd),
                                  bytes([0x05, 0x01]) + struct.pack("<HH", cccd, 0x2902))
        return us

    def read(us, uuid, value):
        return exchange(us, bytes([0x0A]) + struct.pack("<H", VALUE_HANDLE[int(uuid, 16)]), bytes([0x0B]) + value)

    def write(us, uuid, value):
        return exchange(us, bytes([0x12]) + struct.pack("<H", VALUE_HANDLE[int(uuid, 16)]) + value, bytes([0x13]))

    discovered = False
    for e in events:
        if e.kind == "connected":
            connected(e.us)
            if not discovered:
                us = discovery(e.us + 40_000)
                us = read(us, "2a00", name)
                for _, cccd in ((0x2AD2, 0x000E), (0x2AD9, 0x0013), (0x2ADA, 0x0016)):
                    value = b"\x02\x00" if cccd == 0x0013 else b"\x01\x00"
                    us = exchange(us, bytes([0x12]) + struct.pack("<H", cccd) + value, bytes([0x13]))
                discovered = True
        elif e.kind == "disconnected":
            b.event(e.us, 0x05, bytes([0x00]) + struct.pack("<H", handle) + bytes([0x13]))
        elif e.kind == "read":
            read(e.us, e.uuid, e.value)
        elif e.kind == "write":
            write(e.us, e.uuid, e.value)
        elif e.kind == "indicate":
            b.att(e.us, handle, bytes([0x1D]) + struct.pack("<H", VALUE_HANDLE[int(e.uuid, 16)]) + e.value, True)
            b.att(e.us + 2_000, handle, bytes([0x1E]), False)
        elif e.kind == "notify":
            b.att(e.us, handle, bytes([0x1B]) + struct.pack("<H", VALUE_HANDLE[int(e.uuid, 16)]) + e.value, True)
    path.write_bytes(bytes(b.out))


# ---------------------------------------------------------------------------------------------
# The expected result, worked out from the story and contract §5 alone.


def intervals_minus(intervals, holes):
    """Parts of `intervals` outside every hole."""
    out = []
    for start, end, what in intervals:
        pieces = [(start, end)]
        for hole in holes:
            pieces = [p for a, b in pieces for p in ((a, min(b, hole.at)), (max(a, hole.until), b)) if p[1] > p[0]]
        out += [(a, b, what) for a, b in pieces]
    return out


def seconds(x):
    return f"{float(x):.3f}".rstrip("0").rstrip(".")


def analyse(scenario):
    """Sessions as contract §5 defines them, from what the gateway can observe: movement while the
    link is up, Status events, link drops and counter resets."""
    counters = Counters(scenario)
    delivered = Notifier(scenario).delivered()
    observed = intervals_minus([(e.start, e.end, e) for e in scenario.efforts if e.moving], scenario.links)
    observed.sort(key=lambda x: x[0])
    starts = [s for s in scenario.statuses if s.hex == "04"]

    # Everything that can end a session, with the instant it would.
    breakers = [(s.at, "stopped" if s.hex == "0201" else "reset") for s in scenario.statuses if s.hex in ("0201", "01")]
    breakers += [(r, "counter_fallback") for r in scenario.resets]
    breakers += [(d.at + DISCONNECT_GRACE, "disconnected") for d in scenario.links
                 if d.until - d.at >= DISCONNECT_GRACE]

    # Activity marks in time order: observed movement, and Status starts (which open a session).
    marks = [(a, b, "move", e) for a, b, e in observed] + [(s.at, s.at, "start", None) for s in starts]
    marks.sort(key=lambda x: (x[0], x[2] != "start"))

    sessions = []
    current = None

    def ending(after, before):
        """The first thing that ends a session whose last activity was at `after`, before `before`."""
        candidates = [(t, why) for t, why in breakers if after <= t < before]
        candidates.append((after + END_AFTER_IDLE, "idle"))
        t, why = min(candidates, key=lambda c: c[0])
        return (t, why) if t < before and t <= scenario.end else None

    for a, b, kind, effort in marks:
        if current is not None:
            closed = ending(current["last"], a)
            if closed:
                current["end_reason"] = closed[1]
                sessions.append(current)
                current = None
        if current is None:
            current = {"start": a, "last": a, "moves": []}
        if kind == "move":
            current["moves"].append((a, b, effort))
            current["last"] = b
    if current is not None:
        closed = ending(current["last"], scenario.end + 1)
        current["end_reason"] = closed[1] if closed else "end_of_capture"
        sessions.append(current)

    kept, dropped = [], []
    for s in sessions:
        result = summarise(scenario, counters, delivered, s)
        if result["movement"] < MINIMUM_MOVEMENT:
            dropped.append({"reason": "too_short", "started_at": result["started_at"],
                            "derivation": f"{seconds(result['movement'])} s of movement, below contract §5's 60 s minimum"})
        elif round(result["total_distance"]) == 0 and round(result["total_energy"]) == 0:
            dropped.append({"reason": "no_distance_or_energy", "started_at": result["started_at"],
                            "derivation": "no distance and no energy (contract §5)"})
        else:
            del result["movement"]
            kept.append(result)
    return kept, dropped


def wrapped(name, first, last):
    """How a counter that passed its wire width looks on the wire."""
    modulus = 0x1000000 if name == "distance" else 0x10000
    if floor(first) // modulus == floor(last) // modulus:
        return ""
    return f", sent as {floor(first) % modulus} → {floor(last) % modulus} after wrapping at {modulus}"


def summarise(scenario, counters, delivered, s):
    start, end = s["start"], (s["moves"][-1][1] if s["moves"] else s["start"])
    movement = sum((b - a for a, b, _ in s["moves"]), Fraction(0))
    pieces = " + ".join(f"{seconds(a)}–{seconds(b)}" for a, b, _ in s["moves"])
    out = {
        "started_at": iso(scenario.start, start),
        "ended_at": iso(scenario.start, end),
        "duration": round(float(movement), 3),
        "movement": movement,
    }
    # Named and nested as in the summary (contract §5), so one reader takes both.
    methods = {}
    # The smallest step each total can show: a counter's unit, or the summary's rounding to whole units.
    resolution = {"total_distance": 0.5, "total_energy": 0.5}
    why = {
        "started_at": f"t = {seconds(start)} s: "
        + ("the console's Status 'started or resumed' (contract §5 starts a session on it)"
           if not s["moves"] or s["moves"][0][0] != start else "the first real movement"),
        "ended_at": f"t = {seconds(end)} s: the end of the last movement the gateway saw",
        "duration": f"movement seen with the link up: {pieces} s = {seconds(movement)} s",
    }

    def counter(name, unit, accumulate):
        first, last = accumulate(start), accumulate(end)
        total = float(last - first)
        note = (f"the machine's {name} counter rises from {float(first):.3f} at t = {seconds(start)} s to "
                f"{float(last):.3f} at t = {seconds(end)} s: {total:.3f} {unit}; it counts whole {unit} "
                f"(here {floor(first)} → {floor(last)}{wrapped(name, first, last)}), so any reading is within "
                f"1 {unit} of this")
        resolution[f"total_{name}"] = 1
        return total, note

    def integrate(rate, unit, formula):
        total = sum((rate(e) * (b - a) for a, b, e in s["moves"]), Fraction(0))
        terms = " + ".join(f"{formula(e)}×{seconds(b - a)} s" for a, b, e in s["moves"])
        return float(total), f"integrated over the movement seen: ({terms}) = {float(total):.3f} {unit}"

    if "distance" in delivered:
        out["total_distance"], why["total_distance"] = counter("distance", "m", counters.distance)
        methods["distance_method"] = "counter"
    elif "speed" in delivered and any(e.kmh > 0 for _, _, e in s["moves"]):
        out["total_distance"], why["total_distance"] = integrate(
            lambda e: e.kmh / Fraction(36, 10), "m", lambda e: f"{seconds(e.kmh)}/3.6 m/s")
        methods["distance_method"] = "integrated"
    else:
        out["total_distance"], why["total_distance"] = 0, "the machine reports neither a distance counter nor speed"
        methods["distance_method"] = "none"

    if "energy" in delivered:
        out["total_energy"], why["total_energy"] = counter("energy", "kcal", counters.energy)
        methods["energy_method"] = "counter"
    elif "power" in delivered and any(e.watts > 0 for _, _, e in s["moves"]):
        out["total_energy"], why["total_energy"] = integrate(
            lambda e: Fraction(e.watts) / JOULES_PER_KCAL / EFFICIENCY, "kcal",
            lambda e: f"{e.watts} W/4184/0.25")
        methods["energy_method"] = "integrated"
    else:
        out["total_energy"], why["total_energy"] = 0, "the machine reports neither an energy counter nor power"
        methods["energy_method"] = "none"

    out["total_distance"] = round(float(out["total_distance"]), 3)
    out["total_energy"] = round(float(out["total_energy"]), 3)
    methods["end_reason"] = s["end_reason"]
    out["detail"] = methods
    out["resolution"] = resolution
    why["end_reason"] = {
        "idle": f"no movement for {END_AFTER_IDLE} s after t = {seconds(end)} s (contract §5's long idle)",
        "stopped": "the console's Status 'stopped by the user'",
        "reset": "the console's Status 'reset'",
        "counter_fallback": "the console's counters went back to zero: a new rider",
        "disconnected": f"the link stayed down for longer than the {DISCONNECT_GRACE} s grace",
        "end_of_capture": "the capture ends with the session still open",
    }[s["end_reason"]]
    out["derivation"] = why
    return out


def expected_document(scenario, capture_name):
    kept, dropped = analyse(scenario)
    document = {
        "capture": capture_name,
        "scenario": scenario.description,
        "derived_by": (
            "scripts/make-captures.py, analytically from the scenario (rider efforts, the machine's own counter "
            "arithmetic, Status events, link drops) and contract §5's rules with their defaults; not from ftms-bridge. "
            "Sessions: a session starts on the first movement the gateway sees (or a Status start) and ends on a "
            "Status stop or reset, 120 s without movement, a link drop longer than 60 s, or a counter reset; "
            "duration counts movement seen while the link was up (a dropout is not counted as effort); totals are "
            "the machine counter's rise from the session's start to the end of its last movement when the machine "
            "delivers that counter whole, else Σ P·Δt / 4184 / 0.25 and Σ v·Δt over the movement seen; sessions "
            "under 60 s of movement or with neither distance nor energy are dropped."
        ),
        "rules": {"pause_after_idle_s": PAUSE_AFTER_IDLE, "end_after_idle_s": END_AFTER_IDLE,
                  "disconnect_grace_s": DISCONNECT_GRACE, "minimum_movement_s": MINIMUM_MOVEMENT,
                  "efficiency": float(EFFICIENCY)},
        "tolerance": {"times_s": 1, "totals_relative": 0.01,
                      "note": ("the issue's bar: times within 1 s, duration and totals within 1 %, but never tighter "
                               "than a session's `resolution` (1 unit for a machine counter, which counts whole "
                               "metres and kcal; 0.5 for an integral, which the summary rounds to whole units)")},
        "sessions_kept": len(kept),
        "sessions_dropped": len(dropped),
        "sessions": kept,
        "dropped": dropped,
    }
    if scenario.known_issue:
        document["known_issue"] = scenario.known_issue
    return document


# ---------------------------------------------------------------------------------------------
# The machines and the scenarios.

SF_BIKE = Machine("SF-Bike-0001", "C0:11:22:33:44:01", "SolidFocus", "SF-Bike-M1", "bike", "sf-bike")
SF_ROWER = Machine("SF-Rower-0003", "C0:11:22:33:44:03", "SolidFocus", "SF-Rower-M1", "rower", "sf-rower",
                   energy_model="concept2")
IC4 = Machine("IC Bike", "D4:36:39:8A:10:C2", "Nautilus", "IC4", "bike", "ic4", rate=Fraction(2))
STAGES = Machine("Stages Bike 0217", "E8:5A:21:07:02:17", "Stages Cycling", "SB20", "bike", "stages-split")
MATRIX = Machine("MATRIX IC7 5521", "F0:4C:D5:55:21:07", "Matrix", "IC7", "bike", "matrix-truncated")
VIKING = Machine("VIKING PRO V", "C8:FD:19:0E:22:5B", "First Degree Fitness", "Viking Pro V", "rower",
                 "viking-split", energy_model="concept2")
SF_BIKE_5 = Machine("SF-Bike-0005", "C0:11:22:33:44:05", "SolidFocus", "SF-Bike-M1", "bike", "sf-bike")
SF_BIKE_42 = Machine("SF-Bike-0042", "C0:11:22:33:44:2A", "SolidFocus", "SF-Bike-M2", "bike", "full-bike",
                     latency_ms=(5, 40))

SCENARIOS = [
    Scenario(
        "bike-steady",
        "A steady 10-minute ride on an SF-Bike: 20 s idle, 600 s at 165 W, then idle until the 120 s idle rule "
        "ends the session.",
        SF_BIKE, "2026-03-02T06:30:00Z", F(780),
        [ride(20, 620, rpm=86, kmh=31.2, watts=165, bpm=138)],
        seed=11,
    ),
    Scenario(
        "bike-pause",
        "Intervals, a 60 s stop (longer than the 6 s pause, shorter than the 120 s end), then 300 s more: one "
        "session whose duration leaves the pause out.",
        SF_BIKE, "2026-03-02T07:05:00Z", F(700),
        [ride(15, 135, rpm=84, kmh=29.5, watts=150, bpm=128), ride(135, 195, rpm=96, kmh=36, watts=250, bpm=151),
         ride(195, 315, rpm=82, kmh=30.1, watts=160, bpm=140), ride(375, 675, rpm=88, kmh=32.4, watts=175, bpm=142)],
        seed=12,
    ),
    Scenario(
        "bike-too-short",
        "45 s of spinning, then nothing for 145 s (dropped: under the 60 s minimum), then a real 300 s ride.",
        SF_BIKE, "2026-03-02T08:00:00Z", F(530),
        [ride(10, 55, rpm=70, kmh=24, watts=110), ride(200, 500, rpm=90, kmh=33, watts=190, bpm=146)],
        seed=13,
    ),
    Scenario(
        "bike-idle-end",
        "Two riders on one bike, three minutes apart: the first session ends by the 120 s idle rule, the second "
        "starts from the console's running counters.",
        SF_BIKE, "2026-03-02T09:10:00Z", F(880),
        [ride(15, 375, rpm=80, kmh=28, watts=140, bpm=131), ride(560, 860, rpm=92, kmh=34.5, watts=210, bpm=150)],
        seed=14,
    ),
    Scenario(
        "bike-reconnect",
        "The link drops for 25 s mid-ride (within the 60 s grace) while the rider carries on: one session; the "
        "counters cover the dropout, the duration does not.",
        SF_BIKE, "2026-03-02T10:20:00Z", F(670),
        [ride(20, 645, rpm=85, kmh=30.6, watts=170, bpm=139)],
        links=[link_down(320.4, 345.4)],
        seed=15,
    ),
    Scenario(
        "bike-disconnect-timeout",
        "The rider stops and the link drops for 90 s (longer than the 60 s grace): the session ends as "
        "disconnected; a second rider rides after the reconnect.",
        SF_BIKE, "2026-03-02T11:00:00Z", F(740),
        [ride(20, 318, rpm=83, kmh=29.8, watts=155, bpm=133), ride(420, 720, rpm=90, kmh=33.3, watts=195, bpm=147)],
        links=[link_down(320.5, 410.5)],
        seed=16,
    ),
    Scenario(
        "bike-status",
        "The console drives the session: Status start before the first pedal stroke, Status pause and resume, "
        "and Status stop, which ends it.",
        SF_BIKE, "2026-03-02T12:00:00Z", F(660),
        [ride(12, 312, rpm=85, kmh=30.5, watts=165, bpm=137), ride(344, 644, rpm=87, kmh=31.5, watts=180, bpm=143)],
        statuses=[status_started(10), status_paused(312), status_started(342), status_stopped(647)],
        seed=17,
    ),
    Scenario(
        "bike-counter-wrap",
        "A console that keeps running totals since it was switched on 18 h ago: its uint16 elapsed time and "
        "energy counters wrap past 65535 mid-ride, which is a rise, not a new rider.",
        SF_BIKE_5, "2026-03-02T19:00:00Z", F(460),
        [ride(15, 435, rpm=90, kmh=33.5, watts=180, bpm=145)],
        counters_at_start={"distance": 151234, "energy": F("65480.4"), "elapsed": 65300},
        seed=24,
    ),
    Scenario(
        "bike-glitch",
        "One record of zeros (every field, counters included) in the middle of a steady ride: noise, not a stop "
        "and not a new rider, so still one session.",
        SF_BIKE, "2026-03-02T20:00:00Z", F(520),
        [ride(10, 490, rpm=85, kmh=30.8, watts=170, bpm=140)],
        glitches=[F(200)],
        seed=25,
    ),
    Scenario(
        "bike-no-counters",
        "A Schwinn IC4-style bike (0x0244: speed, cadence, power, heart rate; no distance or energy counter) at "
        "2 Hz: distance and energy are integrated.",
        IC4, "2026-03-02T13:00:00Z", F(560),
        [ride(10, 190, rpm=80, kmh=27.5, watts=140, bpm=125), ride(190, 250, rpm=100, kmh=37, watts=280, bpm=158),
         ride(250, 490, rpm=86, kmh=30, watts=170, bpm=142)],
        seed=18,
    ),
    Scenario(
        "bike-split-spec",
        "A Stages SB20-style bike that splits each record over three notifications in the spec's order "
        "(More Data set, set, then clear).",
        STAGES, "2026-03-02T14:00:00Z", F(420),
        [ride(12, 372, rpm=88, kmh=32, watts=185, bpm=144)],
        seed=19,
    ),
    Scenario(
        "bike-truncated",
        "A Matrix-style bike whose flags promise 29 bytes but whose notifications stop at 20 (ATT MTU 23): the "
        "energy counter never arrives whole, so energy is integrated; distance is counted.",
        MATRIX, "2026-03-02T15:00:00Z", F(440),
        [ride(10, 250, rpm=84, kmh=29, watts=150), ride(250, 400, rpm=90, kmh=33, watts=200)],
        seed=20,
    ),
    Scenario(
        "rower-counter-reset",
        "An SF-Rower: one rower stops, the console is reset for the next (every counter back to zero), and a "
        "second rower starts: two sessions, the first ended by the counter fall-back.",
        SF_ROWER, "2026-03-02T16:00:00Z", F(910),
        [row(10, 250, spm=24, watts=160, bpm=140), row(250, 430, spm=28, watts=210, bpm=156),
         row(460, 700, spm=22, watts=130, bpm=128), row(700, 880, spm=26, watts=175, bpm=139)],
        resets=[F(450)],
        seed=21,
    ),
    Scenario(
        "rower-viking-split",
        "A Viking Pro V-style rower: stroke block (More Data clear) first, energy block 60 ms after it, a "
        "distance/time block every second; 24 then 26 strokes a minute.",
        VIKING, "2026-03-02T17:00:00Z", F(540),
        [row(15, 255, spm=24, watts=150), row(255, 495, spm=26, watts=190)],
        seed=22,
    ),
    Scenario(
        "bike-btmon",
        "An SF-Bike recorded by btmon -w (btsnoop datalink 2001) from the scan through GATT discovery: the handle "
        "map comes from the capture; 30-byte records are fragmented over 27-byte ACL packets.",
        SF_BIKE_42, "2026-03-02T18:00:00Z", F(290),
        [ride(12, 102, rpm=84, kmh=29.8, watts=160, bpm=132), ride(102, 162, rpm=95, kmh=35.2, watts=240, bpm=149),
         ride(162, 262, rpm=86, kmh=30.7, watts=170, bpm=141)],
        container="btsnoop",
        seed=23,
    ),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="scenarios to write (default: all)")
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent / "captures"))
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args()
    if args.list:
        for s in SCENARIOS:
            print(f"{s.name}.{s.container}\t{s.description}")
        return 0
    chosen = [s for s in SCENARIOS if not args.names or s.name in args.names]
    unknown = set(args.names) - {s.name for s in SCENARIOS}
    if unknown:
        print(f"make-captures.py: unknown scenario(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for scenario in chosen:
        events = link_events(scenario)
        capture = out / f"{scenario.name}.{scenario.container}"
        if scenario.container == "btsnoop":
            write_btsnoop(scenario, events, capture)
        else:
            write_ftmscap(scenario, events, capture)
        document = expected_document(scenario, capture.name)
        (out / f"{scenario.name}.expected.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        print(f"{capture.name}: {len(events)} events, {document['sessions_kept']} kept, "
              f"{document['sessions_dropped']} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
