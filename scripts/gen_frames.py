#!/usr/bin/env python3
"""gen_frames.py — random FTMS 1.0 frames plus their spec-literal decode.

Why: an oracle for ftms-bridge's decoder (scripts/parity.py) and input for the decode benchmark
(scripts/bench-decode-vs-pyftms.sh). It is written straight from the FTMS 1.0 field tables (the
Bluetooth SIG's Fitness Machine Service 1.0; docs/contract.md §3) and shares no code with
ftms-bridge or pyftms.

Output, one frame per line:  HEX <TAB> EXPECTED-JSON     (or just HEX with --hex-only)
Frames are valid, except that some Fitness Machine Feature and Training Status values are too
short or carry extra bytes, with the contract §3 findings expected: only complete words/fields,
then "truncated": true, or "trailing_bytes": N.
Expected JSON uses the ftms-bridge names of contract §3.1: values scaled to the unit, absent fields
omitted, energy sentinels (0xFFFF / 0xFFFF / 0xFF) -> null and no other sentinel, numbers in their
shortest exact decimal form.

Names for characteristics other than 0x2AD2/0x2AD1 follow the spec wording by the contract §3.1 rule
but are not spelled out in the contract; they live in the tables below (ftms-bridge uses the same names).

usage: gen_frames.py --characteristic 2ad2 [--count N] [--seed S] [--hex-only] [--spaced]
"""
import argparse
import json
import random
import string
import sys
from decimal import Decimal


# A field: (json name, width in bytes, signed, scale, sentinel raw value or None).
def F(name, width, signed=False, scale="1", sentinel=None):
    return (name, width, signed, Decimal(scale), sentinel)


ENERGY = [F("total_energy_kcal", 2, sentinel=0xFFFF),
          F("energy_per_hour_kcal", 2, sentinel=0xFFFF),
          F("energy_per_minute_kcal", 1, sentinel=0xFF)]

# Data records: one entry per flag bit 0..12; bit 0 ("More Data") is inverted: 0 -> present.
INDOOR_BIKE_DATA = [
    [F("instantaneous_speed_kmh", 2, scale="0.01")],        # bit 0 (inverted)
    [F("average_speed_kmh", 2, scale="0.01")],              # bit 1
    [F("instantaneous_cadence_rpm", 2, scale="0.5")],       # bit 2
    [F("average_cadence_rpm", 2, scale="0.5")],             # bit 3
    [F("total_distance_m", 3)],                             # bit 4
    [F("resistance_level", 2, signed=True)],                # bit 5
    [F("instantaneous_power_w", 2, signed=True)],           # bit 6
    [F("average_power_w", 2, signed=True)],                 # bit 7
    ENERGY,                                                 # bit 8
    [F("heart_rate_bpm", 1)],                               # bit 9
    [F("metabolic_equivalent", 1, scale="0.1")],            # bit 10
    [F("elapsed_time_s", 2)],                               # bit 11
    [F("remaining_time_s", 2)],                             # bit 12
]
ROWER_DATA = [
    [F("stroke_rate_spm", 1, scale="0.5"), F("stroke_count", 2)],  # bit 0 (inverted)
    [F("average_stroke_rate_spm", 1, scale="0.5")],         # bit 1
    [F("total_distance_m", 3)],                             # bit 2
    [F("instantaneous_pace_s_per_500m", 2)],                # bit 3
    [F("average_pace_s_per_500m", 2)],                      # bit 4
    [F("instantaneous_power_w", 2, signed=True)],           # bit 5
    [F("average_power_w", 2, signed=True)],                 # bit 6
    [F("resistance_level", 2, signed=True)],                # bit 7
    ENERGY,                                                 # bit 8
    [F("heart_rate_bpm", 1)],                               # bit 9
    [F("metabolic_equivalent", 1, scale="0.1")],            # bit 10
    [F("elapsed_time_s", 2)],                               # bit 11
    [F("remaining_time_s", 2)],                             # bit 12
]

# Fitness Machine Feature 0x2ACC: bit -> name (bits 17..31 RFU).
MACHINE_FEATURES = [
    "average_speed", "cadence", "total_distance", "inclination", "elevation_gain", "pace",
    "step_count", "resistance_level", "stride_count", "expended_energy", "heart_rate_measurement",
    "metabolic_equivalent", "elapsed_time", "remaining_time", "power_measurement",
    "force_on_belt_and_power_output", "user_data_retention"]
TARGET_SETTING_FEATURES = [
    "speed_target", "inclination_target", "resistance_target", "power_target", "heart_rate_target",
    "targeted_expended_energy", "targeted_step_number", "targeted_stride_number",
    "targeted_distance", "targeted_training_time", "targeted_time_in_two_heart_rate_zones",
    "targeted_time_in_three_heart_rate_zones", "targeted_time_in_five_heart_rate_zones",
    "indoor_bike_simulation_parameters", "wheel_circumference", "spin_down_control",
    "targeted_cadence"]


# An enumerated uint8 parameter: (json name, {raw: name}).
def E(name, values):
    return (name, values)


STOP_PAUSE = E("control_information", {1: "stop", 2: "pause"})
SIMULATION = [F("wind_speed_mps", 2, signed=True, scale="0.001"),
              F("grade_percent", 2, signed=True, scale="0.01"),
              F("coefficient_of_rolling_resistance", 1, scale="0.0001"),
              F("wind_resistance_coefficient_kg_per_m", 1, scale="0.01")]
TWO_ZONES = [F("targeted_time_in_fat_burn_zone_s", 2), F("targeted_time_in_fitness_zone_s", 2)]
THREE_ZONES = [F("targeted_time_in_light_zone_s", 2), F("targeted_time_in_moderate_zone_s", 2),
               F("targeted_time_in_hard_zone_s", 2)]
FIVE_ZONES = [F("targeted_time_in_very_light_zone_s", 2), F("targeted_time_in_light_zone_s", 2),
              F("targeted_time_in_moderate_zone_s", 2), F("targeted_time_in_hard_zone_s", 2),
              F("targeted_time_in_maximum_zone_s", 2)]
# Parameters shared by Control Point requests (Table 4.15) and Status events (Table 4.26).
TARGETS = {
    "speed": [F("target_speed_kmh", 2, scale="0.01")],
    "incline": [F("target_inclination_percent", 2, signed=True, scale="0.1")],
    "resistance": [F("target_resistance_level", 1, scale="0.1")],
    "power": [F("target_power_w", 2, signed=True)],
    "heart_rate": [F("target_heart_rate_bpm", 1)],
    "energy": [F("targeted_expended_energy_kcal", 2)],
    "steps": [F("targeted_number_of_steps", 2)],
    "strides": [F("targeted_number_of_strides", 2)],
    "distance": [F("targeted_distance_m", 3)],
    "time": [F("targeted_training_time_s", 2)],
    "cadence": [F("targeted_cadence_rpm", 2, scale="0.5")],
    "circumference": [F("wheel_circumference_mm", 2, scale="0.1")],
}
# Control Point 0x2AD9 requests: op code -> (request name, parameters).
CP_REQUESTS = {
    0x00: ("request_control", []), 0x01: ("reset", []),
    0x02: ("set_target_speed", TARGETS["speed"]),
    0x03: ("set_target_inclination", TARGETS["incline"]),
    0x04: ("set_target_resistance_level", TARGETS["resistance"]),
    0x05: ("set_target_power", TARGETS["power"]),
    0x06: ("set_target_heart_rate", TARGETS["heart_rate"]),
    0x07: ("start_or_resume", []), 0x08: ("stop_or_pause", [STOP_PAUSE]),
    0x09: ("set_targeted_expended_energy", TARGETS["energy"]),
    0x0A: ("set_targeted_number_of_steps", TARGETS["steps"]),
    0x0B: ("set_targeted_number_of_strides", TARGETS["strides"]),
    0x0C: ("set_targeted_distance", TARGETS["distance"]),
    0x0D: ("set_targeted_training_time", TARGETS["time"]),
    0x0E: ("set_targeted_time_in_two_heart_rate_zones", TWO_ZONES),
    0x0F: ("set_targeted_time_in_three_heart_rate_zones", THREE_ZONES),
    0x10: ("set_targeted_time_in_five_heart_rate_zones", FIVE_ZONES),
    0x11: ("set_indoor_bike_simulation_parameters", SIMULATION),
    0x12: ("set_wheel_circumference", TARGETS["circumference"]),
    0x13: ("spin_down_control", [E("spin_down_control", {1: "start", 2: "ignore"})]),
    0x14: ("set_targeted_cadence", TARGETS["cadence"]),
}
CP_RESULTS = {1: "success", 2: "op_code_not_supported", 3: "invalid_parameter",
              4: "operation_failed", 5: "control_not_permitted"}
SPIN_DOWN_RESPONSE = [F("target_speed_low_kmh", 2, scale="0.01"),
                      F("target_speed_high_kmh", 2, scale="0.01")]
# Fitness Machine Status 0x2ADA: op code -> (event name, parameters).
STATUS_EVENTS = {
    0x01: ("reset", []),
    0x02: ("fitness_machine_stopped_or_paused_by_the_user", [STOP_PAUSE]),
    0x03: ("fitness_machine_stopped_by_safety_key", []),
    0x04: ("fitness_machine_started_or_resumed_by_the_user", []),
    0x05: ("target_speed_changed", TARGETS["speed"]),
    0x06: ("target_incline_changed", TARGETS["incline"]),
    0x07: ("target_resistance_level_changed", TARGETS["resistance"]),
    0x08: ("target_power_changed", TARGETS["power"]),
    0x09: ("target_heart_rate_changed", TARGETS["heart_rate"]),
    0x0A: ("targeted_expended_energy_changed", TARGETS["energy"]),
    0x0B: ("targeted_number_of_steps_changed", TARGETS["steps"]),
    0x0C: ("targeted_number_of_strides_changed", TARGETS["strides"]),
    0x0D: ("targeted_distance_changed", TARGETS["distance"]),
    0x0E: ("targeted_training_time_changed", TARGETS["time"]),
    0x0F: ("targeted_time_in_two_heart_rate_zones_changed", TWO_ZONES),
    0x10: ("targeted_time_in_three_heart_rate_zones_changed", THREE_ZONES),
    0x11: ("targeted_time_in_five_heart_rate_zones_changed", FIVE_ZONES),
    0x12: ("indoor_bike_simulation_parameters_changed", SIMULATION),
    0x13: ("wheel_circumference_changed", TARGETS["circumference"]),
    0x14: ("spin_down_status", [E("spin_down_status", {1: "spin_down_requested", 2: "success",
                                                        3: "error", 4: "stop_pedaling"})]),
    0x15: ("targeted_cadence_changed", TARGETS["cadence"]),
    0xFF: ("control_permission_lost", []),
}
# Training Status 0x2AD3 (Table 4.10-ish): status code -> name.
TRAINING_STATUS = [
    "other", "idle", "warming_up", "low_intensity_interval", "high_intensity_interval",
    "recovery_interval", "isometric", "heart_rate_control", "fitness_test",
    "speed_outside_of_control_region_low", "speed_outside_of_control_region_high", "cool_down",
    "watt_control", "manual_mode_quick_start", "pre_workout", "post_workout"]
# Supported ranges 0x2AD4..0x2AD8: minimum, maximum, minimum increment.
RANGES = {
    "2ad4": ("supported_speed_range", [F("minimum_speed_kmh", 2, scale="0.01"),
             F("maximum_speed_kmh", 2, scale="0.01"), F("minimum_increment_kmh", 2, scale="0.01")]),
    "2ad5": ("supported_inclination_range", [F("minimum_inclination_percent", 2, True, "0.1"),
             F("maximum_inclination_percent", 2, True, "0.1"),
             F("minimum_increment_percent", 2, scale="0.1")]),
    "2ad6": ("supported_resistance_level_range", [F("minimum_resistance_level", 2, True, "0.1"),
             F("maximum_resistance_level", 2, True, "0.1"), F("minimum_increment", 2, scale="0.1")]),
    "2ad7": ("supported_heart_rate_range", [F("minimum_heart_rate_bpm", 1),
             F("maximum_heart_rate_bpm", 1), F("minimum_increment_bpm", 1)]),
    "2ad8": ("supported_power_range", [F("minimum_power_w", 2, True), F("maximum_power_w", 2, True),
             F("minimum_increment_w", 2)]),
}
NAMES = {"2ad2": "indoor_bike_data", "2ad1": "rower_data", "2acc": "fitness_machine_feature",
         "2ada": "fitness_machine_status", "2ad9": "fitness_machine_control_point",
         "2ad3": "training_status", **{u: n for u, (n, _) in RANGES.items()}}
CHARACTERISTICS = list(NAMES)


def number(d: Decimal):
    """Shortest exact form: int when integral; else a float whose repr is exactly d."""
    if d == d.to_integral_value():
        return int(d)
    f = float(d)
    assert Decimal(repr(f)) == d, d
    return f


def raw_value(rng, width, signed, sentinel):
    """Uniform over the field's range, with extra weight on edges (0, all-ones, sign limits)."""
    bits = 8 * width
    lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)
    r = rng.random()
    if sentinel is not None and r < 0.2:
        return sentinel
    if r < 0.35:
        return rng.choice([0, 1, hi, hi - 1, lo, -1 if signed else hi >> 1, (1 << bits) - 1 >> 1])
    return rng.randint(lo, hi)


def emit(rng, fields, out: bytearray, obj: dict):
    """Append random values for `fields` to `out`, and their decode to `obj`."""
    for f in fields:
        if len(f) == 2:                                   # enumerated uint8
            name, values = f
            raw = rng.choice(sorted(values))
            out.append(raw)
            obj[name] = values[raw]
            continue
        name, width, signed, scale, sentinel = f
        raw = raw_value(rng, width, signed, sentinel)
        out += raw.to_bytes(width, "little", signed=signed)
        obj[name] = None if raw == sentinel else number(raw * scale)


def data_record(rng, uuid, table):
    flags = rng.getrandbits(13)                           # bits 13..15 RFU: zero
    out, obj = bytearray(flags.to_bytes(2, "little")), {
        "characteristic": NAMES[uuid], "uuid": uuid, "flags": flags, "more_data": bool(flags & 1)}
    for bit, fields in enumerate(table):
        if bool(flags >> bit & 1) != (bit == 0):         # bit 0 inverted
            emit(rng, fields, out, obj)
    return out, obj


def frame(rng, uuid):
    """One random valid frame for characteristic `uuid`: (bytes, expected dict)."""
    if uuid == "2ad2":
        return data_record(rng, uuid, INDOOR_BIKE_DATA)
    if uuid == "2ad1":
        return data_record(rng, uuid, ROWER_DATA)
    out, obj = bytearray(), {"characteristic": NAMES[uuid], "uuid": uuid}
    if uuid == "2acc":
        feats, targets = rng.getrandbits(17), rng.getrandbits(17)   # bits 17..31 RFU
        out += feats.to_bytes(4, "little") + targets.to_bytes(4, "little")
        # A tenth of the values have the wrong length (parity found short ones misreported):
        # only complete words are reported, then "truncated"; extra bytes are "trailing_bytes".
        # (Never empty: an empty line is no frame to `decode`; the golden vectors cover that.)
        length = rng.choice([1, 2, 3, 4, 5, 7, 9, 12]) if rng.random() < 0.1 else 8
        words = min(length // 4, 2)
        if length < 8:
            del out[length:]
        else:
            out += bytes(rng.getrandbits(8) for _ in range(length - 8))
        if words >= 1:
            obj["fitness_machine_features"] = [n for i, n in enumerate(MACHINE_FEATURES) if feats >> i & 1]
        if words == 2:
            obj["target_setting_features"] = [n for i, n in enumerate(TARGET_SETTING_FEATURES)
                                              if targets >> i & 1]
        if words >= 1:
            obj["fitness_machine_features_raw"] = feats
        if words == 2:
            obj["target_setting_features_raw"] = targets
        if length < 8:
            obj["truncated"] = True
        elif length > 8:
            obj["trailing_bytes"] = length - 8
    elif uuid == "2ada":
        op = rng.choice(sorted(STATUS_EVENTS))
        name, params = STATUS_EVENTS[op]
        out.append(op)
        obj.update(op_code=op, event=name)
        emit(rng, params, out, obj)
    elif uuid == "2ad9":
        if rng.random() < 0.3:                            # response indication
            req, res = rng.choice(sorted(CP_REQUESTS)), rng.choice(sorted(CP_RESULTS))
            out += bytes([0x80, req, res])
            obj.update(op_code=0x80, request_op_code=req, request=CP_REQUESTS[req][0],
                       result_code=res, result=CP_RESULTS[res])
            if req == 0x13 and res == 1:                  # Spin Down success carries target speeds
                emit(rng, SPIN_DOWN_RESPONSE, out, obj)
        else:
            op = rng.choice(sorted(CP_REQUESTS))
            name, params = CP_REQUESTS[op]
            out.append(op)
            obj.update(op_code=op, request=name)
            emit(rng, params, out, obj)
    elif uuid == "2ad3":
        flags = rng.choice([0, 1, 3])                     # bit 0 string present, bit 1 extended
        code = rng.randrange(len(TRAINING_STATUS))
        out += bytes([flags, code])
        r = rng.random()
        if r < 0.05:                                      # flags alone: too short for the code
            del out[1:]
            obj.update(flags=flags, truncated=True)
            return out, obj
        obj.update(flags=flags, training_status_code=code, training_status=TRAINING_STATUS[code])
        if not flags & 1 and r < 0.15:                    # no string flagged, yet bytes follow
            extra = rng.randrange(1, 5)
            out += bytes(rng.getrandbits(8) for _ in range(extra))
            obj["trailing_bytes"] = extra
        if flags & 1:
            text = "".join(rng.choice(string.ascii_letters + string.digits + ' -_."\\/')
                           for _ in range(rng.randrange(16)))
            out += text.encode("ascii")
            obj["training_status_string"] = text
    elif uuid in RANGES:
        emit(rng, RANGES[uuid][1], out, obj)
    else:
        raise ValueError(f"unsupported characteristic {uuid}")
    return out, obj


def frames(uuid, count, seed):
    """Yield (bytes, expected dict) pairs; deterministic for a given (uuid, count, seed)."""
    rng = random.Random(f"{uuid}:{seed}")
    for _ in range(count):
        yield frame(rng, uuid)


def vocabulary():
    """Every JSON key this generator can emit, for any characteristic."""
    return {k for c in CHARACTERISTICS for _, o in frames(c, 3000, 0) for k in o}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--characteristic", "-c", default="2ad2", type=str.lower,
                    choices=CHARACTERISTICS, metavar="{" + ",".join(CHARACTERISTICS) + "}")
    ap.add_argument("--count", "-n", type=int, default=10)
    ap.add_argument("--seed", "-s", type=int, default=1)
    ap.add_argument("--hex-only", action="store_true", help="print only the hex of each frame")
    ap.add_argument("--spaced", action="store_true", help="hex as '44 02 da 02'")
    a = ap.parse_args()
    w = sys.stdout.write
    for data, obj in frames(a.characteristic, a.count, a.seed):
        h = data.hex(" ") if a.spaced else data.hex()
        w(h + "\n" if a.hex_only else h + "\t" + json.dumps(obj, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
