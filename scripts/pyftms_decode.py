#!/usr/bin/env python3
"""pyftms_decode.py — decode FTMS frames with pyftms's own parsing code, print ftms-bridge JSON.

Why: pyftms (the library behind Home Assistant's FTMS integration) is the reference we compare
ftms-bridge against, for correctness (scripts/parity.py, informational) and speed
(scripts/bench-decode-vs-pyftms.sh). Nothing is decoded here by hand: every frame goes through the
same pyftms entry point its client uses for that characteristic; this file only renames fields.
Run it with the venv from scripts/pyftms-env.sh (pyftms 0.2.20, Python 3.12).

usage: pyftms_decode.py CHARACTERISTIC [--bench] < frames
  stdin: one frame per line as hex ("4402da02", "44 02 da 02", "44:02:da:02"); anything after a
  TAB is ignored (so gen_frames.py output can be piped in). One JSON object per line on stdout,
  or {"error": "..."} for a frame pyftms rejects.
  --bench: decode every line, print nothing but "pyftms: N frames, E rejected" on stderr.

pyftms entry points (see the installed pyftms/client/backends/*.py and client/properties/features.py):
  2ad2/2ad1  get_serializer(IndoorBikeData|RowerData).deserialize(data)._asdict()  (DataUpdater._on_notify)
  2ada       MachineStatusModel._deserialize(BytesIO)      (MachineController._on_machine_status)
  2ad9       0x80: ControlIndicateModel._deserialize + SpinDownSpeedData serializer
             (MachineController.write_command); requests: ControlModel._deserialize
  2ad3       TrainingStatusModel._deserialize + utf-8 rest   (MachineController._on_training_status)
  2acc       read_features(client)                  2ad4-2ad8  read_supported_ranges(client, settings)
"""
import io
import json
import logging
import re
import sys

from pyftms.client.properties.features import MachineSettings, read_features, read_supported_ranges
from pyftms.models import (ControlCode, ControlIndicateModel, ControlModel, IndoorBikeData,
                           MachineStatusCode, MachineStatusModel, ResultCode, RowerData,
                           SpinDownSpeedData, TrainingStatusFlags, TrainingStatusModel)
from pyftms.serializer import get_serializer

logging.disable(logging.CRITICAL)  # read_features logs its own exceptions; we print them as JSON

# pyftms field name -> ftms-bridge JSON name (contract §3.1 and scripts/gen_frames.py tables).
FIELDS = {
    # Indoor Bike Data / Rower Data (pyftms flattens the nested energy and stroke-rate models)
    "speed_instant": "instantaneous_speed_kmh",
    "speed_average": "average_speed_kmh",
    "cadence_instant": "instantaneous_cadence_rpm",
    "cadence_average": "average_cadence_rpm",
    "stroke_rate_instant": "stroke_rate_spm",
    "stroke_count": "stroke_count",
    "stroke_rate_average": "average_stroke_rate_spm",
    "distance_total": "total_distance_m",
    "split_time_instant": "instantaneous_pace_s_per_500m",
    "split_time_average": "average_pace_s_per_500m",
    "resistance_level": "resistance_level",
    "power_instant": "instantaneous_power_w",
    "power_average": "average_power_w",
    "energy_total": "total_energy_kcal",
    "energy_per_hour": "energy_per_hour_kcal",
    "energy_per_minute": "energy_per_minute_kcal",
    "heart_rate": "heart_rate_bpm",
    "metabolic_equivalent": "metabolic_equivalent",
    "time_elapsed": "elapsed_time_s",
    "time_remaining": "remaining_time_s",
    # Status / Control Point parameters
    "target_speed": "target_speed_kmh",
    "target_inclination": "target_inclination_percent",
    "target_resistance": "target_resistance_level",
    "target_power": "target_power_w",
    "target_heart_rate": "target_heart_rate_bpm",
    "target_energy": "targeted_expended_energy_kcal",
    "target_steps": "targeted_number_of_steps",
    "target_strides": "targeted_number_of_strides",
    "target_distance": "targeted_distance_m",
    "target_cadence": "targeted_cadence_rpm",
    "wheel_circumference": "wheel_circumference_mm",
    "wind_speed": "wind_speed_mps",
    "grade": "grade_percent",
    "rolling_resistance": "coefficient_of_rolling_resistance",
    "wind_resistance": "wind_resistance_coefficient_kg_per_m",
    "stop_pause": "control_information",
    "spin_down": "spin_down_control",
    "spin_down_status": "spin_down_status",
    "low": "target_speed_low_kmh",
    "high": "target_speed_high_kmh",
}
# pyftms's target_time tuple, by length -> our per-zone names
TARGET_TIME = {
    1: ["targeted_training_time_s"],
    2: ["targeted_time_in_fat_burn_zone_s", "targeted_time_in_fitness_zone_s"],
    3: ["targeted_time_in_light_zone_s", "targeted_time_in_moderate_zone_s",
        "targeted_time_in_hard_zone_s"],
    5: ["targeted_time_in_very_light_zone_s", "targeted_time_in_light_zone_s",
        "targeted_time_in_moderate_zone_s", "targeted_time_in_hard_zone_s",
        "targeted_time_in_maximum_zone_s"],
}
# Enumerated parameter values (pyftms passes raw ints) -> our names
ENUMS = {
    "control_information": {1: "stop", 2: "pause"},
    "spin_down_control": {1: "start", 2: "ignore"},
    "spin_down_status": {1: "spin_down_requested", 2: "success", 3: "error", 4: "stop_pedaling"},
}
# pyftms enum member names -> our names
STATUS_EVENTS = {
    "RESET": "reset", "STOP_PAUSE": "fitness_machine_stopped_or_paused_by_the_user",
    "STOP_SAFETY": "fitness_machine_stopped_by_safety_key",
    "START_RESUME": "fitness_machine_started_or_resumed_by_the_user",
    "SPEED": "target_speed_changed", "INCLINE": "target_incline_changed",
    "RESISTANCE": "target_resistance_level_changed", "POWER": "target_power_changed",
    "HEART_RATE": "target_heart_rate_changed", "ENERGY": "targeted_expended_energy_changed",
    "STEPS_NUMBER": "targeted_number_of_steps_changed",
    "STRIDES_NUMBER": "targeted_number_of_strides_changed",
    "DISTANCE": "targeted_distance_changed", "TIME_1": "targeted_training_time_changed",
    "TIME_2": "targeted_time_in_two_heart_rate_zones_changed",
    "TIME_3": "targeted_time_in_three_heart_rate_zones_changed",
    "TIME_5": "targeted_time_in_five_heart_rate_zones_changed",
    "INDOOR_BIKE_SIMULATION": "indoor_bike_simulation_parameters_changed",
    "WHEEL_CIRCUMFERENCE": "wheel_circumference_changed", "SPIN_DOWN": "spin_down_status",
    "CADENCE": "targeted_cadence_changed", "LOST_CONTROL": "control_permission_lost",
}
CP_REQUESTS = {
    "REQUEST_CONTROL": "request_control", "RESET": "reset", "SPEED": "set_target_speed",
    "INCLINE": "set_target_inclination", "RESISTANCE": "set_target_resistance_level",
    "POWER": "set_target_power", "HEART_RATE": "set_target_heart_rate",
    "START_RESUME": "start_or_resume", "STOP_PAUSE": "stop_or_pause",
    "ENERGY": "set_targeted_expended_energy", "STEPS_NUMBER": "set_targeted_number_of_steps",
    "STRIDES_NUMBER": "set_targeted_number_of_strides", "DISTANCE": "set_targeted_distance",
    "TIME_1": "set_targeted_training_time", "TIME_2": "set_targeted_time_in_two_heart_rate_zones",
    "TIME_3": "set_targeted_time_in_three_heart_rate_zones",
    "TIME_5": "set_targeted_time_in_five_heart_rate_zones",
    "INDOOR_BIKE_SIMULATION": "set_indoor_bike_simulation_parameters",
    "WHEEL_CIRCUMFERENCE": "set_wheel_circumference", "SPIN_DOWN": "spin_down_control",
    "CADENCE": "set_targeted_cadence",
}
CP_RESULTS = {"SUCCESS": "success", "NOT_SUPPORTED": "op_code_not_supported",
              "INVALID_PARAMETER": "invalid_parameter", "FAILED": "operation_failed",
              "NOT_PERMITTED": "control_not_permitted"}
TRAINING_STATUS = {
    "OTHER": "other", "IDLE": "idle", "WARMING_UP": "warming_up",
    "LOW_INTENSITY_INTERVAL": "low_intensity_interval",
    "HIGH_INTENSITY_INTERVAL": "high_intensity_interval", "RECOVERY_INTERVAL": "recovery_interval",
    "ISOMETRIC": "isometric", "HEART_RATE_CONTROL": "heart_rate_control",
    "FITNESS_TEST": "fitness_test", "SPEED_TOO_LOW": "speed_outside_of_control_region_low",
    "SPEED_TOO_HIGH": "speed_outside_of_control_region_high", "COOL_DOWN": "cool_down",
    "WATT_CONTROL": "watt_control", "MANUAL_MODE": "manual_mode_quick_start",
    "PRE_WORKOUT": "pre_workout", "POST_WORKOUT": "post_workout",
}
MACHINE_FEATURES = {
    "AVERAGE_SPEED": "average_speed", "CADENCE": "cadence", "DISTANCE": "total_distance",
    "INCLINATION": "inclination", "ELEVATION_GAIN": "elevation_gain", "PACE": "pace",
    "STEP_COUNT": "step_count", "RESISTANCE": "resistance_level", "STRIDE_COUNT": "stride_count",
    "EXPENDED_ENERGY": "expended_energy", "HEART_RATE": "heart_rate_measurement",
    "METABOLIC_EQUIVALENT": "metabolic_equivalent", "ELAPSED_TIME": "elapsed_time",
    "REMAINING_TIME": "remaining_time", "POWER_MEASUREMENT": "power_measurement",
    "FORCE_ON_BELT_AND_POWER_OUTPUT": "force_on_belt_and_power_output",
    "USER_DATA_RETENTION": "user_data_retention",
}
TARGET_SETTINGS = {
    "SPEED": "speed_target", "INCLINE": "inclination_target", "RESISTANCE": "resistance_target",
    "POWER": "power_target", "HEART_RATE": "heart_rate_target",
    "ENERGY": "targeted_expended_energy", "STEPS": "targeted_step_number",
    "STRIDES": "targeted_stride_number", "DISTANCE": "targeted_distance",
    "TIME": "targeted_training_time", "TIME_TWO_ZONES": "targeted_time_in_two_heart_rate_zones",
    "TIME_THREE_ZONES": "targeted_time_in_three_heart_rate_zones",
    "TIME_FIVE_ZONES": "targeted_time_in_five_heart_rate_zones",
    "BIKE_SIMULATION": "indoor_bike_simulation_parameters", "CIRCUMFERENCE": "wheel_circumference",
    "SPIN_DOWN": "spin_down_control", "CADENCE": "targeted_cadence",
}
# Supported range characteristic -> (pyftms setting that makes it read it, our min/max/step names)
RANGES = {
    "2ad4": (MachineSettings.SPEED,
             ["minimum_speed_kmh", "maximum_speed_kmh", "minimum_increment_kmh"]),
    "2ad5": (MachineSettings.INCLINE,
             ["minimum_inclination_percent", "maximum_inclination_percent",
              "minimum_increment_percent"]),
    "2ad6": (MachineSettings.RESISTANCE,
             ["minimum_resistance_level", "maximum_resistance_level", "minimum_increment"]),
    "2ad7": (MachineSettings.HEART_RATE,
             ["minimum_heart_rate_bpm", "maximum_heart_rate_bpm", "minimum_increment_bpm"]),
    "2ad8": (MachineSettings.POWER, ["minimum_power_w", "maximum_power_w", "minimum_increment_w"]),
}
NAMES = {"2ad2": "indoor_bike_data", "2ad1": "rower_data", "2acc": "fitness_machine_feature",
         "2ada": "fitness_machine_status", "2ad9": "fitness_machine_control_point",
         "2ad3": "training_status", "2ad4": "supported_speed_range",
         "2ad5": "supported_inclination_range", "2ad6": "supported_resistance_level_range",
         "2ad7": "supported_heart_rate_range", "2ad8": "supported_power_range"}


class FakeClient:
    """Stands in for bleak's client so pyftms's async readers run on our bytes (no await happens)."""

    def __init__(self, data):
        self.data = data

    async def read_gatt_char(self, uuid):
        return self.data


def run(coro):
    """Drive a coroutine that never suspends (FakeClient never waits) to completion."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("pyftms coroutine suspended")


def rename(d):
    out = {}
    for k, v in d.items():
        if k == "target_time":
            out.update(zip(TARGET_TIME[len(v)], v))
            continue
        name = FIELDS[k]
        out[name] = ENUMS[name].get(v, v) if name in ENUMS else v
    return out


def decoder(uuid, bench=False):
    """Return f(bytes) -> dict in ftms-bridge names, built on pyftms's parser for `uuid`.
    With bench=True, data records stop at pyftms's own result (what DataUpdater gets), unrenamed."""
    if uuid not in NAMES:
        raise SystemExit(f"pyftms_decode: unsupported characteristic {uuid!r} "
                         f"(supported: {', '.join(NAMES)})")
    head = {"characteristic": NAMES[uuid], "uuid": uuid}
    if uuid in ("2ad2", "2ad1"):
        deserialize = get_serializer(IndoorBikeData if uuid == "2ad2" else RowerData).deserialize
        if bench:
            return lambda b: deserialize(b)._asdict()

        def data_record(b):
            fields = deserialize(b)._asdict()
            flags = int.from_bytes(b[:2], "little")
            return {**head, "flags": flags, "more_data": bool(flags & 1), **rename(fields)}
        return data_record
    if uuid == "2ada":
        def status(b):
            m = MachineStatusModel._deserialize(io.BytesIO(b))
            if (code := m.code) is None:  # u1 0xFF is pyftms's "not available" value
                raise ValueError("pyftms decodes op code 0xFF (Control Permission Lost) as None")
            fields = m._asdict()
            del fields["code"]
            return {**head, "op_code": code, "event": STATUS_EVENTS[MachineStatusCode(code).name],
                    **rename(fields)}
        return status
    if uuid == "2ad9":
        def control_point(b):
            bio = io.BytesIO(b)
            if b[:1] == b"\x80":
                ind = ControlIndicateModel._deserialize(bio)
                req, res = ControlCode(ind.request_code), ResultCode(ind.result_code)
                out = {**head, "op_code": int(ind.code), "request_op_code": int(req),
                       "request": CP_REQUESTS[req.name], "result_code": int(res),
                       "result": CP_RESULTS[res.name]}
                s = SpinDownSpeedData._get_serializer()
                if speed := bio.read(s.get_size()):
                    out.update(rename(s.deserialize(speed)._asdict()))
                assert not bio.read(1)
                return out
            fields = ControlModel._deserialize(bio)._asdict()
            code = fields.pop("code")
            return {**head, "op_code": code, "request": CP_REQUESTS[ControlCode(code).name],
                    **rename(fields)}
        return control_point
    if uuid == "2ad3":
        def training_status(b):
            bio = io.BytesIO(b)
            m = TrainingStatusModel._deserialize(bio)
            out = {**head, "flags": int(m.flags), "training_status_code": int(m.code),
                   "training_status": TRAINING_STATUS[m.code.name]}
            if TrainingStatusFlags.STRING_PRESENT in m.flags:
                if rest := bio.read():  # pyftms drops an empty string
                    out["training_status_string"] = rest.decode("utf-8")
            return out
        return training_status
    if uuid == "2acc":
        def features(b):
            feats, settings = run(read_features(FakeClient(b)))
            return {**head,
                    "fitness_machine_features": [MACHINE_FEATURES[f.name] for f in feats],
                    "target_setting_features": [TARGET_SETTINGS[s.name] for s in settings],
                    "fitness_machine_features_raw": int(feats),
                    "target_setting_features_raw": int(settings)}
        return features
    if uuid in RANGES:
        setting, names = RANGES[uuid]

        def supported_range(b):
            ranges = run(read_supported_ranges(FakeClient(b), setting))
            (rng,) = ranges.values()
            return {**head, **{n: v for n, v in zip(names, rng) if v is not None}}
        return supported_range


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    bench = "--bench" in sys.argv[1:]
    if len(args) != 1:
        raise SystemExit(__doc__.split("\n\n")[2])
    uuid = args[0].lower().removeprefix("0x")
    decode = decoder(uuid, bench)
    text = sys.stdin.buffer.read().decode("ascii", "replace")
    if "\t" in text:
        text = re.sub(r"\t[^\n]*", "", text)
    if ":" in text:
        text = text.replace(":", " ")
    lines = text.splitlines()
    fromhex = bytes.fromhex
    n = rejected = 0
    if bench:
        for line in lines:
            if not line:
                continue
            n += 1
            try:
                decode(fromhex(line))
            except Exception:
                rejected += 1
        print(f"pyftms: {n} frames, {rejected} rejected", file=sys.stderr)
        return
    out = []
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = decode(fromhex(line))
        except Exception as e:
            rejected += 1
            obj = {"error": f"{type(e).__name__}: {e}" if str(e) else type(e).__name__}
        out.append(json.dumps(obj, separators=(",", ":")))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()
