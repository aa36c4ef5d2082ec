# -*- coding: utf-8 -*-
'''Fake BlueZ 5.66 for ftms-bridge: python-dbusmock's bluez5 template plus FTMS machines with GATT.

Run it with the Debian python (python3-dbus, python3-gi, python3-dbusmock live there):

    /usr/bin/python3 -m dbusmock --system --template Tests/Fixtures/dbusmock/ftms_bluez.py

It owns org.bluez on the bus named by DBUS_SYSTEM_BUS_ADDRESS (see scripts/test-bus.sh) and is driven
through mock-control methods on the org.bluez.Mock interface of object "/". Tests/Fixtures/dbusmock/README.md
lists them, the object paths, and what is and is not like BlueZ 5.66.

What this adds to or changes in the stock template (dbusmock.templates.bluez5, whose load() still
provides /org/bluez with AgentManager1 and ProfileManager1, and whose PairDevice control is
re-exported unchanged):
  * AddFTMSMachine / AddNameOnlyDevice, GATT services, characteristics and descriptors with BlueZ's
    handle-based paths, notify sessions per D-Bus sender, an FTMS Control Point that answers by indication;
  * Device1.Connect/Disconnect with 5.66 semantics and orderings (Connected=true before the Connect reply,
    ServicesResolved after it, ServicesResolved=false before Connected=false, success when already
    (dis)connected, br-connection-canceled, le-connection-abort-by-local, ...);
  * Adapter1 discovery sessions per sender, filter validation, Powered off dropping links and sessions,
    Roles; RemoveDevice removing the GATT objects too;
  * correctly typed ManufacturerData (a{qv}) and ServiceData (a{sv}) everywhere (the stock AddDevice sends
    aa{qv} / aa{sv}), so AddAdapter, AddDevice, RemoveAdapter, RemoveAdapterWithDevices, ConnectDevice,
    DisconnectDevice and BlockDevice are re-implemented with the stock signatures.
'''

# This file is test infrastructure for ftms-bridge. It builds on python-dbusmock (LGPL-3.0-or-later),
# which it imports and does not copy.

import functools
import re
import socket
import time
from xml.etree import ElementTree

import dbus
import dbus.exceptions
import dbus.service
from gi.repository import GLib

from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5

# Stock mock controls kept as they are. AddTemplate() only exports D-Bus methods that are attributes of
# this module, so importing them here is what re-exports them.
from dbusmock.templates.bluez5 import PairDevice  # noqa: F401  pylint: disable=unused-import

BUS_NAME = bluez5.BUS_NAME          # org.bluez
MAIN_OBJ = bluez5.MAIN_OBJ          # /
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

MOCK_IFACE = bluez5.BLUEZ_MOCK_IFACE  # org.bluez.Mock
ADAPTER_IFACE = bluez5.ADAPTER_IFACE
DEVICE_IFACE = bluez5.DEVICE_IFACE
SERVICE_IFACE = 'org.bluez.GattService1'
CHRC_IFACE = 'org.bluez.GattCharacteristic1'
DESC_IFACE = 'org.bluez.GattDescriptor1'
PROPS_IFACE = dbus.PROPERTIES_IFACE
INTROSPECT_IFACE = 'org.freedesktop.DBus.Introspectable'
ERROR = 'org.bluez.Error.'
MOCK_ERROR = 'org.bluez.Mock.Error.'

ATT_MTU = 247


def uuid16(short):
    return f'{short:08x}-0000-1000-8000-00805f9b34fb'


FE01 = uuid16(0xFE01)
FTMS = uuid16(0x1826)
CCC = 0x2902

# ---------------------------------------------------------------------------------------------------
# small helpers


def _err(name, message):
    return dbus.exceptions.DBusException(message, name=name)


def _bluez_err(kind, message):
    return _err(ERROR + kind, message)


def _mock_err(kind, message):
    return _err(MOCK_ERROR + kind, message)


def _ay(data):
    return dbus.Array([dbus.Byte(b) for b in bytes(data)], signature='y')


def _as(strings):
    return dbus.Array([dbus.String(s) for s in strings], signature='s')


def _parse_hex(text):
    cleaned = re.sub(r'[\s:,-]', '', str(text))
    if cleaned.lower().startswith('0x'):
        cleaned = cleaned[2:]
    try:
        return bytes.fromhex(cleaned)
    except ValueError as e:
        raise _mock_err('InvalidArguments', f'not hex bytes: {text!r}') from e


def _root():
    return mockobject.objects['/']


def _alive(obj):
    return mockobject.objects.get(obj.path) is obj


def _changed(obj, iface, changed, invalidated=()):
    '''Store changed properties and emit one PropertiesChanged (even if nothing changed, as BlueZ does
    for Value).'''
    for name, value in changed.items():
        obj.props.setdefault(iface, {})[name] = value
    for name in invalidated:
        obj.props.get(iface, {}).pop(name, None)
    obj.EmitSignal(PROPS_IFACE, 'PropertiesChanged', 'sa{sv}as', [
        iface,
        dbus.Dictionary(changed, signature='sv'),
        dbus.Array(list(invalidated), signature='s'),
    ])


def _interfaces_added(obj):
    _root().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}', [
        dbus.ObjectPath(obj.path),
        dbus.Dictionary({i: dbus.Dictionary(p, signature='sv') for i, p in obj.props.items()},
                        signature='sa{sv}'),
    ])


def _interfaces_removed(path, interfaces):
    _root().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesRemoved', 'oas', [
        dbus.ObjectPath(path), dbus.Array(list(interfaces), signature='s')])


def _add_object(path, iface, props, methods):
    '''AddObject, plus the empty Introspectable/Properties entries BlueZ lists in GetManagedObjects and
    InterfacesAdded, plus our own method functions (which can see the sender and reply later).'''
    _root().AddObject(path, iface, props, [])
    obj = mockobject.objects[path]
    obj.props[INTROSPECT_IFACE] = dbus.Dictionary({}, signature='sv')
    obj.props[PROPS_IFACE] = dbus.Dictionary({}, signature='sv')
    _install(obj, iface, methods)
    _install(obj, PROPS_IFACE, [_Common.Set])
    _install(obj, INTROSPECT_IFACE, [_Common.Introspect])
    return obj


def _install(obj, iface, functions):
    for fn in functions:
        obj.methods.setdefault(iface, {})[fn.__name__] = (
            fn._dbus_in_signature, fn._dbus_out_signature, '', fn)  # pylint: disable=protected-access


def _remove_object(obj):
    interfaces = list(obj.props.keys())
    if _alive(obj):
        _root().RemoveObject(obj.path)
    _interfaces_removed(obj.path, interfaces)


def bluez_method(iface, in_sig='', out_sig='', async_reply=False):
    '''A BlueZ-side method: sees the sender, checks the call's signature like BlueZ's gdbus does (a wrong
    signature is UnknownMethod there, not a Python TypeError), logs like dbusmock, and with
    async_reply=True gets reply(*values)/error(exception) callbacks instead of returning.'''

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            message = kwargs.get('message')
            signature = message.get_signature() if message is not None else in_sig
            if signature != in_sig:
                raise _err('org.freedesktop.DBus.Error.UnknownMethod',
                           f'Method "{fn.__name__}" with signature "{signature}" on interface '
                           f'"{iface}" doesn\'t exist')
            self.log(fn.__name__ + mockobject._format_args(args))  # pylint: disable=protected-access
            self.call_log.append((int(time.time()), fn.__name__, list(args)))
            self.MethodCalled(fn.__name__, list(args))
            return fn(self, *args, **kwargs)

        return dbus.service.method(iface, in_signature=in_sig, out_signature=out_sig,
                                   sender_keyword='sender', message_keyword='message',
                                   async_callbacks=('reply', 'error') if async_reply else None)(wrapper)

    return decorate


# ---------------------------------------------------------------------------------------------------
# state kept on the mock objects


class DeviceState:  # pylint: disable=too-many-instance-attributes
    def __init__(self, adapter_path, kind):
        self.adapter_path = adapter_path
        self.kind = kind                  # 'bike', 'rower' or None (no GATT)
        self.alive = True
        self.connected = False
        self.resolved = False
        self.pending_connect = None       # (reply, error) of a Connect() not answered yet
        self.connect_mode = 'ok'          # ok | abort | hang | no-resolve | early-resolve
        self.connect_ms = 0
        self.resolve_ms = 0
        self.timers = set()
        self.gatt = []                    # GATT objects in export order (parents first)
        self.gatt_specs = []              # (path, iface, props, methods, chrc-state or None)
        self.advertised_uuids = []
        self.resolved_uuids = []
        self.exported = False
        self.controlled = False
        self.resistance_form = 'uint8'    # uint8 | sint16 | any
        self.indication_order = 'after-reply'  # after-reply | before-reply | none
        self.write_delay_ms = 0
        self.forced_results = {}          # op code -> result code
        self.pending_ops = {}             # id -> error callback of a GATT op waiting for its reply


class ChrcState:  # pylint: disable=too-many-instance-attributes
    def __init__(self, device_path, short_uuid, flags):
        self.device_path = device_path
        self.short = short_uuid
        self.flags = list(flags)
        self.sessions = {}                # sender -> active (False while the link is down)
        self.writes = []
        self.write_pending = False
        self.notify_sock = None           # our end of an AcquireNotify socketpair
        self.notify_watch = None


def _later(state, ms, fn):
    '''Run fn from the main loop after ms (0: after the current method has replied).'''
    holder = []

    def run():
        state.timers.discard(holder[0])
        if state.alive:
            fn()
        return False

    holder.append(GLib.timeout_add(int(ms), run))
    state.timers.add(holder[0])
    return holder[0]


def _cancel_timers(state):
    for source in list(state.timers):
        GLib.source_remove(source)
    state.timers.clear()


def _device_obj(ref):
    '''A device given as object path or as address.'''
    ref = str(ref)
    if ref.startswith('/'):
        obj = mockobject.objects.get(ref)
        if obj is not None and DEVICE_IFACE in obj.props:
            return obj
    else:
        for obj in list(mockobject.objects.values()):
            if DEVICE_IFACE in obj.props and str(obj.props[DEVICE_IFACE].get('Address', '')).upper() == ref.upper():
                return obj
    raise _mock_err('NoSuchDevice', f'no device {ref}')


def _chrc_obj(path):
    obj = mockobject.objects.get(str(path))
    if obj is None or not hasattr(obj, 'chrc'):
        raise _mock_err('NoSuchCharacteristic', f'no characteristic {path}')
    return obj


def _adapter_obj(name):
    path = '/org/bluez/' + str(name)
    obj = mockobject.objects.get(path)
    if obj is None or ADAPTER_IFACE not in obj.props:
        raise _err(MOCK_IFACE + '.NoSuchAdapter', f'Adapter {name} does not exist.')
    return obj


def _device_of(chrc_obj):
    return mockobject.objects.get(chrc_obj.chrc.device_path)


def _chrc_by_uuid(state, short):
    for obj in state.gatt:
        if hasattr(obj, 'chrc') and obj.chrc.short == short:
            return obj
    return None


# ---------------------------------------------------------------------------------------------------
# the FTMS machine's GATT database (what BlueZ 5.66 exports after browsing it)

# Fitness Machine Feature (0x2ACC): 4 bytes machine features + 4 bytes target setting features, LE.
#   bike : cadence(1) total distance(2) resistance level(7) expended energy(9) elapsed time(12)
#          power measurement(14) = 0x00005286; targets: resistance(2) power(3) indoor bike simulation(13)
#          = 0x0000200c
#   rower: total distance(2) pace(5) resistance level(7) expended energy(9) elapsed time(12) power(14)
#          = 0x000052a4; targets: resistance(2) = 0x00000004
FEATURES = {
    'bike': bytes.fromhex('86520000' '0c200000'),
    'rower': bytes.fromhex('a4520000' '04000000'),
}
# Supported Resistance Level Range (0x2AD6): sint16 min, sint16 max, uint16 increment, 0.1 units: 1.0-24.0 by 1.0
RESISTANCE_RANGE = bytes.fromhex('0a00' 'f000' '0a00')
# Supported Power Range (0x2AD8), bike only: sint16 min, sint16 max, uint16 increment, watts: 10-1000 by 5
POWER_RANGE = bytes.fromhex('0a00' 'e803' '0500')

TARGET_RESISTANCE = 1 << 2
TARGET_POWER = 1 << 3
TARGET_SIMULATION = 1 << 13


def _ftms_layout(kind):
    '''[(service handle, service uuid, [(decl handle, uuid, flags, value, [descriptor handles])])].
    Characteristic paths use the declaration handle, the value handle is +1, descriptors follow.'''
    model = b'SF-Bike-M1' if kind == 'bike' else b'SF-Rower-M1'
    data_uuid = 0x2AD2 if kind == 'bike' else 0x2AD1
    ftms_chars = [
        (0x0010, 0x2ACC, ['read'], FEATURES[kind], []),
        (0x0012, data_uuid, ['notify'], b'', [0x0014]),
        (0x0015, 0x2ADA, ['notify'], b'', [0x0017]),
        (0x0018, 0x2AD9, ['write', 'indicate'], b'', [0x001a]),
        (0x001b, 0x2AD6, ['read'], RESISTANCE_RANGE, []),
    ]
    if kind == 'bike':
        ftms_chars.append((0x001d, 0x2AD8, ['read'], POWER_RANGE, []))
    return [
        # Generic Attribute with Service Changed: exported by 5.66 (GAP 0x1800, handles 5-9, is claimed
        # by bluetoothd's gap plugin and not exported).
        (0x0001, 0x1801, [(0x0002, 0x2A05, ['indicate'], b'', [0x0004])]),
        (0x000a, 0x180A, [
            (0x000b, 0x2A29, ['read'], b'SolidFocus', []),
            (0x000d, 0x2A24, ['read'], model, []),
        ]),
        (0x000f, 0x1826, ftms_chars),
    ]


def _build_gatt(dev_obj):
    '''Fill state.gatt_specs for a machine; _export_gatt() creates the objects.'''
    state = dev_obj.ftms
    specs = []
    for s_handle, s_uuid, chars in _ftms_layout(state.kind):
        s_path = f'{dev_obj.path}/service{s_handle:04x}'
        specs.append((s_path, SERVICE_IFACE, {
            'UUID': dbus.String(uuid16(s_uuid)),
            'Device': dbus.ObjectPath(dev_obj.path),
            'Primary': dbus.Boolean(True),
            'Includes': dbus.Array([], signature='o'),
        }, [], None))
        for c_handle, c_uuid, flags, value, descs in chars:
            c_path = f'{s_path}/char{c_handle:04x}'
            props = {
                'UUID': dbus.String(uuid16(c_uuid)),
                'Service': dbus.ObjectPath(s_path),
                'Value': _ay(value),
                'Flags': _as(flags),
                'MTU': dbus.UInt16(ATT_MTU),
            }
            if 'notify' in flags or 'indicate' in flags:
                props['Notifying'] = dbus.Boolean(False)
            if 'notify' in flags:
                props['NotifyAcquired'] = dbus.Boolean(False)
            specs.append((c_path, CHRC_IFACE, props, _CHRC_METHODS, (c_uuid, flags)))
            for d_handle in descs:
                specs.append((f'{c_path}/desc{d_handle:04x}', DESC_IFACE, {
                    'UUID': dbus.String(uuid16(CCC)),
                    'Characteristic': dbus.ObjectPath(c_path),
                    'Value': _ay(b''),
                }, _DESC_METHODS, None))
    state.gatt_specs = specs
    uuids = {FE01, FTMS, uuid16(0x1800)} | {str(p['UUID']) for _, i, p, _, _ in specs if i == SERVICE_IFACE}
    state.resolved_uuids = sorted(uuids)


def _export_gatt(dev_obj):
    '''InterfacesAdded for every GATT object, parents first (as gdbus does), with fresh state.'''
    state = dev_obj.ftms
    if state.exported or not state.gatt_specs:
        return
    state.gatt = []
    for path, iface, props, methods, chrc in state.gatt_specs:
        obj = _add_object(path, iface, dict(props), methods)
        if chrc is not None:
            obj.chrc = ChrcState(dev_obj.path, *chrc)
        state.gatt.append(obj)
        _interfaces_added(obj)
    state.exported = True


def _unexport_gatt(dev_obj):
    '''InterfacesRemoved for every GATT object, children first; notify sessions end with them.'''
    state = dev_obj.ftms
    for obj in reversed(state.gatt):
        if hasattr(obj, 'chrc'):
            _close_notify_sock(obj, emit=False)
        _remove_object(obj)
    state.gatt = []
    state.exported = False


# ---------------------------------------------------------------------------------------------------
# links


def _link_up(dev_obj):
    '''Connected=true; then (after the caller replied) ServicesResolved per connect mode.'''
    state = dev_obj.ftms
    state.connected = True
    for obj in state.gatt:
        if hasattr(obj, 'chrc'):
            # btd_gatt_client_connected(): every stored notify session is registered again
            for sender in obj.chrc.sessions:
                obj.chrc.sessions[sender] = True
    _changed(dev_obj, DEVICE_IFACE, {'Connected': dbus.Boolean(True)})
    if state.connect_mode == 'no-resolve':
        return
    delay = 0 if state.connect_mode == 'early-resolve' else state.resolve_ms
    _later(state, delay, lambda: _resolve(dev_obj))


def _resolve(dev_obj):
    state = dev_obj.ftms
    if not state.connected:
        return
    early = state.connect_mode == 'early-resolve' and not state.exported
    if not early:
        _export_discovered(dev_obj)
    state.resolved = True
    _changed(dev_obj, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(True)})
    if early:
        # bluez #1489: ServicesResolved=true before the objects are on the bus
        _later(state, max(state.resolve_ms, 1), lambda: _export_discovered(dev_obj))


def _export_discovered(dev_obj):
    state = dev_obj.ftms
    if not state.exported and state.gatt_specs:
        if list(dev_obj.props[DEVICE_IFACE]['UUIDs']) != state.resolved_uuids:
            _changed(dev_obj, DEVICE_IFACE, {'UUIDs': _as(state.resolved_uuids)})
        _export_gatt(dev_obj)
    for obj in state.gatt:
        if hasattr(obj, 'chrc') and any(obj.chrc.sessions.values()) and \
                not obj.props[CHRC_IFACE].get('Notifying', True):
            _changed(obj, CHRC_IFACE, {'Notifying': dbus.Boolean(True)})


def _fail_pending_ops(state, error):
    pending = list(state.pending_ops.values())
    state.pending_ops.clear()
    for fail in pending:
        fail(error)


def _link_down(dev_obj):
    '''ServicesResolved=false (if it was true) then Connected=false. Notify sessions stay (inactive);
    Notifying is not reset; AcquireNotify sockets get HUP; pending GATT ops fail.'''
    state = dev_obj.ftms
    _cancel_timers(state)
    _fail_pending_ops(state, _bluez_err('Failed', 'Operation failed'))
    for obj in state.gatt:
        if hasattr(obj, 'chrc'):
            obj.chrc.write_pending = False
            _close_notify_sock(obj, emit=True)
            for sender in obj.chrc.sessions:
                obj.chrc.sessions[sender] = False
    state.controlled = False
    if state.resolved:
        state.resolved = False
        _changed(dev_obj, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(False)})
    if state.connected:
        state.connected = False
        _changed(dev_obj, DEVICE_IFACE, {'Connected': dbus.Boolean(False)})


def _cancel_pending_connect(dev_obj, message):
    state = dev_obj.ftms
    if state.pending_connect is None:
        return False
    _, fail = state.pending_connect
    state.pending_connect = None
    _cancel_timers(state)
    fail(_bluez_err('Failed', message))
    return True


def _remove_device(dev_obj, emit_link_down):
    state = dev_obj.ftms
    _cancel_pending_connect(dev_obj, 'br-connection-canceled')
    if emit_link_down:
        _link_down(dev_obj)
    else:
        _cancel_timers(state)
        _fail_pending_ops(state, _bluez_err('Failed', 'Operation failed'))
    if state.gatt:
        _unexport_gatt(dev_obj)
    state.alive = False
    _remove_object(dev_obj)


def _devices_of(adapter_path):
    return [o for p, o in list(mockobject.objects.items())
            if p.startswith(adapter_path + '/') and DEVICE_IFACE in o.props and hasattr(o, 'ftms')]


# ---------------------------------------------------------------------------------------------------
# notify sessions


def _has_active_session(chrc_obj):
    # An acquired socket is a subscription too: BlueZ wrote the CCCD for it.
    return chrc_obj.chrc.notify_sock is not None or any(chrc_obj.chrc.sessions.values())


def _update_notifying(chrc_obj):
    '''gatt-client.c update_notifying(): Notifying goes false when no session is registered.'''
    props = chrc_obj.props[CHRC_IFACE]
    if props.get('Notifying') and not _has_active_session(chrc_obj):
        _changed(chrc_obj, CHRC_IFACE, {'Notifying': dbus.Boolean(False)})


def _close_notify_sock(chrc_obj, emit):
    chrc = chrc_obj.chrc
    if chrc.notify_sock is None:
        return
    if chrc.notify_watch is not None:
        GLib.source_remove(chrc.notify_watch)
        chrc.notify_watch = None
    try:
        chrc.notify_sock.close()
    except OSError:
        pass
    chrc.notify_sock = None
    if emit and _alive(chrc_obj):
        _changed(chrc_obj, CHRC_IFACE, {'NotifyAcquired': dbus.Boolean(False)})


def _deliver(chrc_obj, value):
    '''One notification or indication as BlueZ 5.66 passes it on: a datagram on an acquired socket, else
    Value := value and one PropertiesChanged, even when the value is unchanged.'''
    chrc = chrc_obj.chrc
    if chrc.notify_sock is not None:
        try:
            chrc.notify_sock.send(bytes(value))
        except OSError:
            pass
        return
    _changed(chrc_obj, CHRC_IFACE, {'Value': _ay(value)})


def _on_name_owner_changed(name, _old_owner, new_owner):
    '''A client left the bus: its notify sessions and discovery session end (g_dbus_add_disconnect_watch).'''
    if not str(name).startswith(':') or new_owner:
        return
    for obj in list(mockobject.objects.values()):
        if hasattr(obj, 'chrc') and name in obj.chrc.sessions:
            del obj.chrc.sessions[name]
            _update_notifying(obj)
        if hasattr(obj, 'discovery'):
            obj.discovery.get('filters', {}).pop(name, None)
            if name in obj.discovery['sessions']:
                obj.discovery['sessions'].discard(name)
                _discovery_changed(obj)


# ---------------------------------------------------------------------------------------------------
# FTMS Control Point (what the machine does with a write request)

RESULT_SUCCESS = 0x01
RESULT_NOT_SUPPORTED = 0x02
RESULT_INVALID_PARAMETER = 0x03
RESULT_FAILED = 0x04
RESULT_NOT_PERMITTED = 0x05


def _range(dev_obj, short):
    obj = _chrc_by_uuid(dev_obj.ftms, short)
    if obj is None:
        return None
    raw = bytes(obj.props[CHRC_IFACE]['Value'])
    if len(raw) < 4:
        return None
    return (int.from_bytes(raw[0:2], 'little', signed=True), int.from_bytes(raw[2:4], 'little', signed=True))


def _target_features(dev_obj):
    obj = _chrc_by_uuid(dev_obj.ftms, 0x2ACC)
    raw = bytes(obj.props[CHRC_IFACE]['Value']) if obj is not None else b''
    return int.from_bytes(raw[4:8], 'little') if len(raw) >= 8 else 0


def _control_point(dev_obj, value):  # pylint: disable=too-many-return-statements,too-many-branches
    '''Returns (response indication bytes, status notification bytes or None).'''
    state = dev_obj.ftms
    op = value[0]
    params = value[1:]

    def answer(result, status=None):
        forced = state.forced_results.get(op)
        if forced is not None:
            result = forced
        if op == 0x00 and result == RESULT_SUCCESS:
            state.controlled = True
        if op == 0x01 and result == RESULT_SUCCESS:
            state.controlled = False
        return bytes([0x80, op, result]), (status if result == RESULT_SUCCESS else None)

    if op == 0x00:                                    # Request Control
        return answer(RESULT_SUCCESS)
    if not state.controlled:
        return answer(RESULT_NOT_PERMITTED)
    targets = _target_features(dev_obj)
    if op == 0x01:                                    # Reset: control is released
        return answer(RESULT_SUCCESS, b'\x01')
    if op == 0x04:                                    # Set Target Resistance Level, 0.1 units
        if not targets & TARGET_RESISTANCE:
            return answer(RESULT_NOT_SUPPORTED)
        form = state.resistance_form
        if len(params) == 1 and form in ('uint8', 'any'):
            level = params[0]
        elif len(params) == 2 and form in ('sint16', 'any'):
            level = int.from_bytes(params, 'little', signed=True)
        else:
            return answer(RESULT_INVALID_PARAMETER)
        limits = _range(dev_obj, 0x2AD6)
        if limits is not None and not limits[0] <= level <= limits[1]:
            return answer(RESULT_INVALID_PARAMETER)
        return answer(RESULT_SUCCESS, bytes([0x07, level & 0xFF]))
    if op == 0x05:                                    # Set Target Power, sint16 W
        if not targets & TARGET_POWER:
            return answer(RESULT_NOT_SUPPORTED)
        if len(params) != 2:
            return answer(RESULT_INVALID_PARAMETER)
        watts = int.from_bytes(params, 'little', signed=True)
        limits = _range(dev_obj, 0x2AD8)
        if limits is not None and not limits[0] <= watts <= limits[1]:
            return answer(RESULT_INVALID_PARAMETER)
        return answer(RESULT_SUCCESS, b'\x08' + bytes(params))
    if op == 0x07:                                    # Start or Resume
        if params:
            return answer(RESULT_INVALID_PARAMETER)
        return answer(RESULT_SUCCESS, b'\x04')
    if op == 0x08:                                    # Stop (1) or Pause (2)
        if len(params) != 1 or params[0] not in (1, 2):
            return answer(RESULT_INVALID_PARAMETER)
        return answer(RESULT_SUCCESS, bytes([0x02, params[0]]))
    if op == 0x11:                                    # Set Indoor Bike Simulation Parameters
        if not targets & TARGET_SIMULATION:
            return answer(RESULT_NOT_SUPPORTED)
        if len(params) != 6:
            return answer(RESULT_INVALID_PARAMETER)
        return answer(RESULT_SUCCESS, b'\x12' + bytes(params))
    return answer(RESULT_NOT_SUPPORTED)


# ---------------------------------------------------------------------------------------------------
# D-Bus methods of the BlueZ objects (kept out of the module namespace so AddTemplate() does not put
# them on "/")


def _parse_options(options, allow_type):
    '''gatt-client.c parse_options(): offset must be q, type must be s; other keys are ignored.'''
    offset, kind = 0, None
    for key, value in options.items():
        if key == 'offset':
            if not isinstance(value, dbus.UInt16):
                raise _bluez_err('InvalidArguments', 'Invalid arguments in method call')
            offset = int(value)
        elif key == 'type' and allow_type:
            if not isinstance(value, dbus.String):
                raise _bluez_err('InvalidArguments', 'Invalid arguments in method call')
            kind = str(value)
    return offset, kind


# Properties a client may Set (everything else is read-only in BlueZ), with their D-Bus types.
WRITABLE = {
    ADAPTER_IFACE: {'Alias': dbus.String, 'Powered': dbus.Boolean, 'Discoverable': dbus.Boolean,
                    'DiscoverableTimeout': dbus.UInt32, 'Pairable': dbus.Boolean, 'PairableTimeout': dbus.UInt32},
    DEVICE_IFACE: {'Alias': dbus.String, 'Trusted': dbus.Boolean, 'Blocked': dbus.Boolean,
                   'WakeAllowed': dbus.Boolean},
}


class _Common:
    @bluez_method(PROPS_IFACE, 'ssv', '')
    def Set(self, interface, name, value, sender=None, message=None):  # pylint: disable=unused-argument
        if name not in self.props.get(interface, {}):
            raise _err('org.freedesktop.DBus.Error.InvalidArgs', f'No such property \'{name}\'')
        expected = WRITABLE.get(interface, {}).get(name)
        if expected is None:
            raise _err('org.freedesktop.DBus.Error.PropertyReadOnly', f'Property \'{name}\' is not writable')
        if not isinstance(value, expected):
            raise _err('org.freedesktop.DBus.Error.InvalidArgs', 'Invalid arguments in method call')
        if interface == ADAPTER_IFACE and name == 'Powered':
            _set_powered(self, bool(value))
            return
        _changed(self, interface, {name: expected(value)})

    @dbus.service.method(INTROSPECT_IFACE, in_signature='', out_signature='s',
                         path_keyword='object_path', connection_keyword='connection')
    def Introspect(self, object_path, connection):
        '''dbusmock's introspection (property types guessed from the stored values), with BlueZ's
        read-only properties marked access="read".'''
        xml = mockobject.DBusMockObject.Introspect(self, object_path, connection)
        tree = ElementTree.fromstring(xml)
        for interface in tree.findall('interface'):
            writable = WRITABLE.get(interface.get('name'), {})
            for prop in interface.findall('property'):
                if interface.get('name', '').startswith('org.bluez.'):
                    prop.set('access', 'readwrite' if prop.get('name') in writable else 'read')
        return ElementTree.tostring(tree, encoding='unicode')


class _Adapter:
    @bluez_method(ADAPTER_IFACE, '', '')
    def StartDiscovery(self, sender=None, message=None):  # pylint: disable=unused-argument
        d = self.discovery
        if not self.props[ADAPTER_IFACE]['Powered']:
            raise _bluez_err('NotReady', 'Resource Not Ready')
        if sender in d['sessions']:
            raise _bluez_err('InProgress', 'Operation already in progress')
        if d['failures'] > 0:
            # the kernel (MGMT) refused to start: 5.66 answers InProgress and drops the session
            d['failures'] -= 1
            raise _bluez_err('InProgress', 'Operation already in progress')
        d['sessions'].add(sender)
        _discovery_changed(self)

    @bluez_method(ADAPTER_IFACE, '', '')
    def StopDiscovery(self, sender=None, message=None):  # pylint: disable=unused-argument
        d = self.discovery
        if not self.props[ADAPTER_IFACE]['Powered']:
            raise _bluez_err('NotReady', 'Resource Not Ready')
        if sender not in d['sessions']:
            raise _bluez_err('Failed', 'No discovery started')
        d['sessions'].discard(sender)
        _discovery_changed(self)

    @bluez_method(ADAPTER_IFACE, 'a{sv}', '')
    def SetDiscoveryFilter(self, properties, sender=None, message=None):  # pylint: disable=unused-argument
        if not self.props[ADAPTER_IFACE]['Powered']:
            raise _bluez_err('NotReady', 'Resource Not Ready')
        types = {'UUIDs': dbus.Array, 'RSSI': dbus.Int16, 'Pathloss': dbus.UInt16, 'Transport': dbus.String,
                 'DuplicateData': dbus.Boolean, 'Discoverable': dbus.Boolean, 'Pattern': dbus.String}
        invalid = _bluez_err('InvalidArguments', 'Invalid arguments in method call')
        for key, value in properties.items():
            if key not in types or not isinstance(value, types[key]):
                raise invalid
        if 'UUIDs' in properties:
            if properties['UUIDs'].signature != 's':
                raise invalid
            for u in properties['UUIDs']:
                if not re.fullmatch(r'[0-9a-fA-F]{4}|[0-9a-fA-F]{8}|'
                                    r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
                                    str(u)):
                    raise invalid
        if 'RSSI' in properties and not -127 <= int(properties['RSSI']) <= 20:
            raise invalid
        if 'RSSI' in properties and 'Pathloss' in properties:
            raise invalid
        if 'Transport' in properties and str(properties['Transport']) not in ('auto', 'bredr', 'le'):
            raise invalid
        filters = self.discovery.setdefault('filters', {})
        if len(properties) == 0:
            filters.pop(sender, None)
        else:
            filters[sender] = dict(properties)

    @bluez_method(ADAPTER_IFACE, '', 'as')
    def GetDiscoveryFilters(self, sender=None, message=None):  # pylint: disable=unused-argument
        return dbus.Array(['UUIDs', 'RSSI', 'Pathloss', 'Transport', 'DuplicateData', 'Discoverable', 'Pattern'],
                          signature='s')

    @bluez_method(ADAPTER_IFACE, 'o', '')
    def RemoveDevice(self, device, sender=None, message=None):  # pylint: disable=unused-argument
        if not self.props[ADAPTER_IFACE]['Powered']:
            raise _bluez_err('NotReady', 'Resource Not Ready')
        obj = mockobject.objects.get(str(device))
        if obj is None or DEVICE_IFACE not in obj.props or not str(device).startswith(self.path + '/'):
            raise _bluez_err('DoesNotExist', 'Does Not Exist')
        _remove_device(obj, emit_link_down=True)


def _discovery_changed(adapter):
    d = adapter.discovery
    now = bool(d['sessions'])
    if bool(adapter.props[ADAPTER_IFACE]['Discovering']) == now:
        return
    _changed(adapter, ADAPTER_IFACE, {'Discovering': dbus.Boolean(now)})
    if not now:
        # discovery_cleanup(): RSSI (and TxPower) of devices seen are invalidated
        for dev in _devices_of(adapter.path):
            gone = [n for n in ('RSSI', 'TxPower') if n in dev.props[DEVICE_IFACE]]
            if gone and not dev.ftms.connected:
                _changed(dev, DEVICE_IFACE, {}, gone)


def _set_powered(adapter, on):
    props = adapter.props[ADAPTER_IFACE]
    if bool(props['Powered']) == on:
        return
    if not on:
        for dev in _devices_of(adapter.path):
            _cancel_pending_connect(dev, 'le-connection-abort-by-local')
            _link_down(dev)
        adapter.discovery['sessions'].clear()
        adapter.discovery['filters'] = {}
        _discovery_changed(adapter)
    _changed(adapter, ADAPTER_IFACE, {'Powered': dbus.Boolean(on)})


class _Device:
    @bluez_method(DEVICE_IFACE, '', '', async_reply=True)
    def Connect(self, sender=None, message=None, reply=None, error=None):  # pylint: disable=unused-argument
        state = self.ftms
        if state.connected:
            reply()                     # 5.66 LE: already connected is success
            return
        if state.pending_connect is not None:
            error(_bluez_err('Failed', 'Operation already in progress'))
            return
        if not mockobject.objects[state.adapter_path].props[ADAPTER_IFACE]['Powered']:
            error(_bluez_err('Failed', 'Input/output error'))
            return
        mode = state.connect_mode
        state.pending_connect = (reply, error)
        if mode == 'hang':
            return                      # until Disconnect() (br-connection-canceled) or the caller's timeout

        def finish():
            done, fail = state.pending_connect
            state.pending_connect = None
            if mode == 'abort':
                _changed(self, DEVICE_IFACE, {'Connected': dbus.Boolean(True)})
                _changed(self, DEVICE_IFACE, {'Connected': dbus.Boolean(False)})
                fail(_bluez_err('Failed', 'le-connection-abort-by-local'))
                return
            _link_up(self)              # Connected=true first ...
            done()                      # ... then the reply; ServicesResolved comes later

        if state.connect_ms > 0:
            _later(state, state.connect_ms, finish)
        else:
            finish()

    @bluez_method(DEVICE_IFACE, '', '', async_reply=True)
    def Disconnect(self, sender=None, message=None, reply=None, error=None):  # pylint: disable=unused-argument
        _cancel_pending_connect(self, 'br-connection-canceled')
        if self.ftms.connected:
            _link_down(self)            # ServicesResolved=false, Connected=false, then the reply
        reply()                         # 5.66: success when not connected too

    @bluez_method(DEVICE_IFACE, '', '')
    def Pair(self, sender=None, message=None):  # pylint: disable=unused-argument
        if self.props[DEVICE_IFACE].get('Paired'):
            raise _bluez_err('AlreadyExists', 'Already Exists')
        _changed(self, DEVICE_IFACE, {'Paired': dbus.Boolean(True),
                                      'Bonded': dbus.Boolean(True)})

    @bluez_method(DEVICE_IFACE, '', '')
    def CancelPairing(self, sender=None, message=None):  # pylint: disable=unused-argument
        raise _bluez_err('DoesNotExist', 'Does Not Exist')

    @bluez_method(DEVICE_IFACE, 's', '')
    def ConnectProfile(self, uuid, sender=None, message=None):  # pylint: disable=unused-argument
        raise _bluez_err('NotAvailable', 'Operation currently not available')

    @bluez_method(DEVICE_IFACE, 's', '')
    def DisconnectProfile(self, uuid, sender=None, message=None):  # pylint: disable=unused-argument
        raise _bluez_err('NotAvailable', 'Operation currently not available')


class _Chrc:
    @bluez_method(CHRC_IFACE, 'a{sv}', 'ay')
    def ReadValue(self, options, sender=None, message=None):  # pylint: disable=unused-argument
        dev = _device_of(self)
        if not dev.ftms.connected:
            raise _bluez_err('Failed', 'Not connected')
        offset, _ = _parse_options(options, allow_type=False)
        if 'read' not in self.chrc.flags:
            raise _bluez_err('NotPermitted', 'Read not permitted')       # ATT 0x02
        value = bytes(self.props[CHRC_IFACE]['Value'])
        if offset > len(value):
            raise _bluez_err('InvalidArguments', 'Invalid offset')       # ATT 0x07
        # a read stores the value and emits PropertiesChanged(Value) before the reply
        _changed(self, CHRC_IFACE, {'Value': _ay(value)})
        return dbus.Array([dbus.Byte(b) for b in value[offset:]], signature='y')

    @bluez_method(CHRC_IFACE, 'aya{sv}', '', async_reply=True)
    def WriteValue(self, value, options, sender=None, message=None, reply=None, error=None):  # pylint: disable=unused-argument,too-many-return-statements
        dev = _device_of(self)
        state = dev.ftms
        chrc = self.chrc
        if not state.connected:
            raise _bluez_err('Failed', 'Not connected')
        if chrc.write_pending:
            raise _bluez_err('InProgress', 'In Progress')
        offset, kind = _parse_options(options, allow_type=True)
        data = bytes(value)
        if kind is None:
            if 'reliable-write' in chrc.flags:
                kind = 'reliable'
            elif 'write' in chrc.flags:
                kind = 'request'
            elif 'write-without-response' in chrc.flags:
                kind = 'command'
            else:
                raise _bluez_err('NotSupported', 'Operation is not supported')
        if kind == 'reliable':
            kind = 'request'
        if kind == 'command':
            if offset:
                raise _bluez_err('NotSupported', 'Operation is not supported')
            chrc.writes.append(data)   # sent as Write Command; a Control Point ignores it (no response)
            reply()
            return
        if kind != 'request':
            raise _bluez_err('NotSupported', 'Operation is not supported')
        if 'write' not in chrc.flags:
            raise _bluez_err('NotPermitted', 'Write not permitted')      # ATT 0x03
        chrc.writes.append(data)
        if chrc.short != 0x2AD9:
            reply()
            return
        # FTMS Control Point
        if not _has_active_session(self):
            # indications not enabled: the machine answers ATT 0xFD (CCCD improperly configured)
            raise _bluez_err('Failed', 'Operation failed with ATT error: 0xfd')
        if not data:
            raise _bluez_err('InvalidArguments', 'Invalid Length')          # ATT 0x0D
        response, status = _control_point(dev, data)

        def indicate():
            if not state.connected:
                return
            _deliver(self, response)
            status_chrc = _chrc_by_uuid(state, 0x2ADA)
            if status is not None and status_chrc is not None and _has_active_session(status_chrc):
                _deliver(status_chrc, status)

        def answer():
            chrc.write_pending = False
            if order == 'before-reply':
                indicate()
                reply()
            else:
                reply()
                if order == 'after-reply':
                    _later(state, 0, indicate)

        order = state.indication_order
        if state.write_delay_ms > 0:
            chrc.write_pending = True
            op_id = object()
            state.pending_ops[op_id] = error

            def delayed():
                if state.pending_ops.pop(op_id, None) is not None:
                    answer()

            _later(state, state.write_delay_ms, delayed)
        else:
            answer()

    @bluez_method(CHRC_IFACE, '', '')
    def StartNotify(self, sender=None, message=None):  # pylint: disable=unused-argument
        chrc = self.chrc
        if chrc.notify_sock is not None:
            raise _bluez_err('NotPermitted', 'Notify acquired')
        if 'notify' not in chrc.flags and 'indicate' not in chrc.flags:
            raise _bluez_err('NotSupported', 'Operation is not supported')
        if sender in chrc.sessions:
            if chrc.sessions[sender]:
                return
            raise _bluez_err('InProgress', 'In Progress')   # registered, link down: not re-registered yet
        dev = _device_of(self)
        if not dev.ftms.connected:
            chrc.sessions[sender] = False   # success now, registered when the device connects
            return
        chrc.sessions[sender] = True
        if not self.props[CHRC_IFACE].get('Notifying'):
            _changed(self, CHRC_IFACE, {'Notifying': dbus.Boolean(True)})

    @bluez_method(CHRC_IFACE, '', '')
    def StopNotify(self, sender=None, message=None):  # pylint: disable=unused-argument
        chrc = self.chrc
        if chrc.notify_sock is not None:
            _close_notify_sock(self, emit=True)
            return
        if sender not in chrc.sessions:
            raise _bluez_err('Failed', 'No notify session started')
        del chrc.sessions[sender]
        _update_notifying(self)

    @bluez_method(CHRC_IFACE, 'a{sv}', 'hq')
    def AcquireNotify(self, options, sender=None, message=None):  # pylint: disable=unused-argument
        chrc = self.chrc
        if not _device_of(self).ftms.connected:
            raise _bluez_err('Failed', 'Not connected')
        if chrc.notify_sock is not None:
            raise _bluez_err('NotPermitted', 'Notify acquired')
        if chrc.sessions:
            raise _bluez_err('InProgress', 'In Progress')
        if 'notify' not in chrc.flags:
            raise _bluez_err('NotSupported', 'Operation is not supported')  # 5.66: indicate-only refused
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        chrc.notify_sock = ours

        def hup(_fd, _condition):
            chrc.notify_watch = None
            _close_notify_sock(self, emit=True)
            return False

        chrc.notify_watch = GLib.io_add_watch(ours.fileno(), GLib.IO_HUP | GLib.IO_ERR, hup)
        _changed(self, CHRC_IFACE, {'NotifyAcquired': dbus.Boolean(True)})
        fd = dbus.types.UnixFd(theirs.fileno())
        theirs.close()  # UnixFd dup()ed it
        return (fd, dbus.UInt16(ATT_MTU))

    @bluez_method(CHRC_IFACE, 'a{sv}', 'hq')
    def AcquireWrite(self, options, sender=None, message=None):  # pylint: disable=unused-argument
        if not _device_of(self).ftms.connected:
            raise _bluez_err('Failed', 'Not connected')
        raise _bluez_err('NotSupported', 'Operation is not supported')     # no write-without-response chars


class _Desc:
    @bluez_method(DESC_IFACE, 'a{sv}', 'ay')
    def ReadValue(self, options, sender=None, message=None):  # pylint: disable=unused-argument
        chrc_obj = mockobject.objects.get(str(self.props[DESC_IFACE]['Characteristic']))
        if not _device_of(chrc_obj).ftms.connected:
            raise _bluez_err('Failed', 'Not connected')
        offset, _ = _parse_options(options, allow_type=False)
        bits = 0
        if _has_active_session(chrc_obj):
            bits = 0x0001 if 'notify' in chrc_obj.chrc.flags else 0x0002
        value = bits.to_bytes(2, 'little')
        if offset > len(value):
            raise _bluez_err('InvalidArguments', 'Invalid offset')
        _changed(self, DESC_IFACE, {'Value': _ay(value)})
        return dbus.Array([dbus.Byte(b) for b in value[offset:]], signature='y')

    @bluez_method(DESC_IFACE, 'aya{sv}', '')
    def WriteValue(self, value, options, sender=None, message=None):  # pylint: disable=unused-argument
        chrc_obj = mockobject.objects.get(str(self.props[DESC_IFACE]['Characteristic']))
        if not _device_of(chrc_obj).ftms.connected:
            raise _bluez_err('Failed', 'Not connected')
        raise _bluez_err('NotPermitted', 'Write not permitted')   # the CCCD: use StartNotify


_ADAPTER_METHODS = [_Adapter.StartDiscovery, _Adapter.StopDiscovery, _Adapter.SetDiscoveryFilter,
                    _Adapter.GetDiscoveryFilters, _Adapter.RemoveDevice]
_DEVICE_METHODS = [_Device.Connect, _Device.Disconnect, _Device.Pair, _Device.CancelPairing,
                   _Device.ConnectProfile, _Device.DisconnectProfile]
_CHRC_METHODS = [_Chrc.ReadValue, _Chrc.WriteValue, _Chrc.StartNotify, _Chrc.StopNotify,
                 _Chrc.AcquireNotify, _Chrc.AcquireWrite]
_DESC_METHODS = [_Desc.ReadValue, _Desc.WriteValue]


# ---------------------------------------------------------------------------------------------------
# object creation


def _new_adapter(device_name, system_name):
    path = '/org/bluez/' + device_name
    if path in mockobject.objects:
        raise _mock_err('AlreadyExists', f'adapter {device_name} exists')
    digits = re.findall(r'\d', device_name)
    n = int(digits[-1]) if digits else 0
    address = ':'.join(f'{n + i:02d}' for i in range(6))
    props = {
        'Address': dbus.String(address),
        'AddressType': dbus.String('public'),
        'Name': dbus.String(system_name),
        'Alias': dbus.String(system_name),
        'Class': dbus.UInt32(268),
        'Powered': dbus.Boolean(True),
        'Discoverable': dbus.Boolean(False),
        'DiscoverableTimeout': dbus.UInt32(180),
        'Pairable': dbus.Boolean(True),
        'PairableTimeout': dbus.UInt32(0),
        'Discovering': dbus.Boolean(False),
        'UUIDs': _as([uuid16(0x1200), uuid16(0x1800), uuid16(0x1801), uuid16(0x110e), uuid16(0x110c)]),
        'Modalias': dbus.String('usb:v1D6Bp0246d0542'),
        'Roles': _as(['central', 'peripheral']),
    }
    obj = _add_object(path, ADAPTER_IFACE, props, _ADAPTER_METHODS)
    obj.discovery = {'sessions': set(), 'filters': {}, 'failures': 0}
    _interfaces_added(obj)
    return path


def _new_device(adapter_name, address, name, address_type, uuids, service_data, manufacturer_data,
                rssi, kind):
    adapter = _adapter_obj(adapter_name)
    if not re.fullmatch(r'([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}', str(address)):
        raise _mock_err('InvalidArguments', f'not a Bluetooth address: {address}')
    address = str(address).upper()
    path = f'{adapter.path}/dev_{address.replace(":", "_")}'
    if path in mockobject.objects:
        raise _mock_err('AlreadyExists', f'device {path} exists')
    props = {
        'Address': dbus.String(address),
        'AddressType': dbus.String(address_type),
    }
    if name is not None:
        props['Name'] = dbus.String(name)
    props.update({
        'Alias': dbus.String(name if name is not None else address.replace(':', '-')),
        'Paired': dbus.Boolean(False),
        'Bonded': dbus.Boolean(False),
        'Trusted': dbus.Boolean(False),
        'Blocked': dbus.Boolean(False),
        'LegacyPairing': dbus.Boolean(False),
        'RSSI': dbus.Int16(rssi),
        'Connected': dbus.Boolean(False),
        'UUIDs': _as(uuids),
        'Adapter': dbus.ObjectPath(adapter.path),
        'ManufacturerData': dbus.Dictionary(
            {dbus.UInt16(k): dbus.Array([dbus.Byte(b) for b in v], signature='y')
             for k, v in manufacturer_data.items()}, signature='qv'),
        'ServiceData': dbus.Dictionary(
            {dbus.String(k): dbus.Array([dbus.Byte(b) for b in v], signature='y')
             for k, v in service_data.items()}, signature='sv'),
        'AdvertisingFlags': _ay(b'\x06'),
        'ServicesResolved': dbus.Boolean(False),
    })
    if not manufacturer_data:
        del props['ManufacturerData']   # BlueZ leaves out empty ones
    if not service_data:
        del props['ServiceData']
    obj = _add_object(path, DEVICE_IFACE, props, _DEVICE_METHODS)
    obj.ftms = DeviceState(adapter.path, kind)
    obj.ftms.advertised_uuids = sorted(uuids)
    obj.paired = False               # stock PairDevice/Pair bookkeeping
    obj.connected = False
    return obj


def _new_machine(adapter_name, address, name, kind):
    kind = str(kind).lower()
    if kind not in ('bike', 'rower'):
        raise _mock_err('InvalidArguments', f'kind must be "bike" or "rower", not {kind!r}')
    # FTMS service data: flags 0x01 (available), machine type bit 5 indoor bike / bit 4 rower (uint16 LE)
    ftms_service_data = bytes([0x01, 0x20 if kind == 'bike' else 0x10, 0x00])
    obj = _new_device(adapter_name, address, name, 'random', [FE01, FTMS],
                      {FTMS: ftms_service_data}, {0xFFFF: b'SF' + bytes([0x01 if kind == 'bike' else 0x02])},
                      -60, kind)
    _build_gatt(obj)
    # known from an earlier connection (Cache=always): the GATT objects are on the bus already and
    # UUIDs holds the resolved services
    obj.props[DEVICE_IFACE]['UUIDs'] = _as(obj.ftms.resolved_uuids)
    _interfaces_added(obj)
    _export_gatt(obj)
    return obj


# ---------------------------------------------------------------------------------------------------
# mock controls (org.bluez.Mock on "/"), stock names and signatures first


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='s')
def AddAdapter(self, device_name, system_name):  # pylint: disable=unused-argument
    '''Add an adapter /org/bluez/<device_name> (Powered, Roles central+peripheral). Returns its path.'''
    return _new_adapter(str(device_name), str(system_name))


@dbus.service.method(MOCK_IFACE, in_signature='sss', out_signature='s')
def AddDevice(self, adapter_device_name, device_address, alias):  # pylint: disable=unused-argument
    '''Add a plain LE device (public address, no UUIDs, no GATT). Returns its path.'''
    obj = _new_device(adapter_device_name, device_address, str(alias), 'public', [], {}, {}, -79, None)
    _interfaces_added(obj)
    return obj.path


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def RemoveAdapter(self, device_name):  # pylint: disable=unused-argument
    '''Remove an adapter (unplugged): InterfacesRemoved for its GATT objects and devices, then for it.'''
    adapter = _adapter_obj(device_name)
    for dev in _devices_of(adapter.path):
        _remove_device(dev, emit_link_down=False)
    _remove_object(adapter)


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def RemoveAdapterWithDevices(self, device_name):
    '''Same as RemoveAdapter.'''
    RemoveAdapter(self, device_name)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def ConnectDevice(self, adapter_device_name, device_address):  # pylint: disable=unused-argument
    '''The link comes up without a Connect() call (auto-connect): Connected=true, then ServicesResolved.'''
    dev = _device_obj(device_address)
    if not dev.path.startswith('/org/bluez/' + str(adapter_device_name) + '/'):
        raise _err(MOCK_IFACE + '.NoSuchDevice', f'Device {device_address} does not exist.')
    if dev.ftms.connected:
        return
    done = dev.ftms.pending_connect
    dev.ftms.pending_connect = None
    _cancel_timers(dev.ftms)
    _link_up(dev)
    if done is not None:
        done[0]()


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def DisconnectDevice(self, adapter_device_name, device_address):  # pylint: disable=unused-argument
    '''The link drops (machine switched off, out of range): ServicesResolved=false, Connected=false;
    a pending Connect() gets br-connection-canceled, pending GATT calls "Operation failed".'''
    dev = _device_obj(device_address)
    if not dev.path.startswith('/org/bluez/' + str(adapter_device_name) + '/'):
        raise _err(MOCK_IFACE + '.NoSuchDevice', f'Device {device_address} does not exist.')
    _cancel_pending_connect(dev, 'br-connection-canceled')
    _link_down(dev)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def BlockDevice(self, adapter_device_name, device_address):  # pylint: disable=unused-argument
    '''Blocked=true; a connected device is disconnected first.'''
    dev = _device_obj(device_address)
    if not dev.path.startswith('/org/bluez/' + str(adapter_device_name) + '/'):
        raise _err(MOCK_IFACE + '.NoSuchDevice', f'Device {device_address} does not exist.')
    _cancel_pending_connect(dev, 'br-connection-canceled')
    _link_down(dev)
    _changed(dev, DEVICE_IFACE, {'Blocked': dbus.Boolean(True)})


@dbus.service.method(MOCK_IFACE, in_signature='ssss', out_signature='s')
def AddFTMSMachine(self, adapter, address, name, kind):  # pylint: disable=unused-argument
    '''An FTMS machine ("bike" or "rower"), known with its GATT database. Returns the device path.'''
    return _new_machine(adapter, address, str(name), kind).path


@dbus.service.method(MOCK_IFACE, in_signature='sss', out_signature='s')
def AddNameOnlyDevice(self, adapter, address, name):  # pylint: disable=unused-argument
    '''A device whose name looks like a machine but that advertises no 0xFE01 (no UUIDs at all, no GATT).'''
    obj = _new_device(adapter, address, str(name), 'random', [], {}, {}, -70, None)
    _interfaces_added(obj)
    return obj.path


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def VanishDevice(self, device):  # pylint: disable=unused-argument
    '''The device object disappears without Connected=false (InterfacesRemoved only), as when BlueZ drops
    a temporary device or restarts.'''
    _remove_device(_device_obj(device), emit_link_down=False)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def NotifyValue(self, char_path, hex_value):  # pylint: disable=unused-argument
    '''A notification/indication from the machine: Value := bytes and one PropertiesChanged (also for an
    unchanged value), or a datagram on an AcquireNotify socket. Refused (org.bluez.Mock.Error.NotNotifying)
    unless the device is connected and a client has enabled notifications, as a real machine would never
    send it then.'''
    obj = _chrc_obj(char_path)
    if not _device_of(obj).ftms.connected or not (_has_active_session(obj) or obj.chrc.notify_sock is not None):
        raise _mock_err('NotNotifying', f'{char_path}: device not connected or notifications not enabled')
    _deliver(obj, _parse_hex(hex_value))


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def NotifyValueUnchecked(self, char_path, hex_value):  # pylint: disable=unused-argument
    '''Value := bytes and PropertiesChanged, whatever the connection and notify state.'''
    _changed(_chrc_obj(char_path), CHRC_IFACE, {'Value': _ay(_parse_hex(hex_value))})


@dbus.service.method(MOCK_IFACE, in_signature='sb', out_signature='')
def HoldNotifySession(self, char_path, hold):  # pylint: disable=unused-argument
    '''For trying things by hand with one-shot tools (busctl, gdbus), whose notify sessions end when the
    tool exits, as in BlueZ: hold=true adds a session owned by the fake itself (Notifying=true while
    connected), false removes it. Tests of the bridge must not use it: it hides a missing StartNotify.'''
    obj = _chrc_obj(char_path)
    owner = 'org.bluez.Mock'
    if hold:
        if 'notify' not in obj.chrc.flags and 'indicate' not in obj.chrc.flags:
            raise _mock_err('InvalidArguments', 'characteristic has neither notify nor indicate')
        obj.chrc.sessions[owner] = _device_of(obj).ftms.connected
        if obj.chrc.sessions[owner] and not obj.props[CHRC_IFACE].get('Notifying'):
            _changed(obj, CHRC_IFACE, {'Notifying': dbus.Boolean(True)})
    elif owner in obj.chrc.sessions:
        del obj.chrc.sessions[owner]
        _update_notifying(obj)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def SetValue(self, char_path, hex_value):  # pylint: disable=unused-argument
    '''Change what the machine holds in a characteristic (e.g. 0x2ACC, 0x2AD6) without any signal.'''
    obj = _chrc_obj(char_path)
    obj.props[CHRC_IFACE]['Value'] = _ay(_parse_hex(hex_value))


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='aay')
def GetWrites(self, char_path):  # pylint: disable=unused-argument
    '''Every value written to the characteristic (WriteValue, request or command), oldest first.'''
    obj = _chrc_obj(char_path)
    return dbus.Array([dbus.Array([dbus.Byte(b) for b in w], signature='y') for w in obj.chrc.writes],
                      signature='ay')


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def ClearWrites(self, char_path):  # pylint: disable=unused-argument
    _chrc_obj(char_path).chrc.writes = []


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='a{ss}')
def GetGattPaths(self, device):  # pylint: disable=unused-argument
    '''Map of 4-hex-digit UUID ("1826", "2ad9", "2ad9/2902" for a descriptor) to object path.'''
    dev = _device_obj(device)
    result, uuids = {}, {}
    for path, iface, props, _, _ in getattr(dev.ftms, 'gatt_specs', []):
        short = str(props['UUID'])[4:8]
        if iface == DESC_IFACE:
            short = f'{uuids[str(props["Characteristic"])]}/{short}'
        uuids[path] = short
        result[short] = path
    return dbus.Dictionary(result, signature='ss')


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def SetResistanceForm(self, device, form):  # pylint: disable=unused-argument
    '''Which Set Target Resistance Level (0x04) parameter the machine accepts: "uint8" (1 byte, the
    spec's form; the default), "sint16" (2 bytes) or "any". The other form is answered 0x03.'''
    if str(form) not in ('uint8', 'sint16', 'any'):
        raise _mock_err('InvalidArguments', 'form must be uint8, sint16 or any')
    _device_obj(device).ftms.resistance_form = str(form)


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def SetIndicationOrder(self, device, order):  # pylint: disable=unused-argument
    '''When the Control Point response indication is sent relative to the WriteValue reply:
    "after-reply" (default), "before-reply", or "none" (never: the client's timeout path).'''
    if str(order) not in ('after-reply', 'before-reply', 'none'):
        raise _mock_err('InvalidArguments', 'order must be after-reply, before-reply or none')
    _device_obj(device).ftms.indication_order = str(order)


@dbus.service.method(MOCK_IFACE, in_signature='su', out_signature='')
def SetWriteDelay(self, device, ms):  # pylint: disable=unused-argument
    '''Delay the Control Point WriteValue reply by ms; meanwhile a second write gets InProgress and a
    link loss fails it with "Operation failed".'''
    _device_obj(device).ftms.write_delay_ms = int(ms)


@dbus.service.method(MOCK_IFACE, in_signature='suu', out_signature='')
def SetControlPointResult(self, device, op_code, result):  # pylint: disable=unused-argument
    '''Force the result code answered to op_code (e.g. 4 → 0x04 "operation failed"); result 0 removes
    the override.'''
    state = _device_obj(device).ftms
    if int(result) == 0:
        state.forced_results.pop(int(op_code), None)
    else:
        state.forced_results[int(op_code)] = int(result) & 0xFF


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def LoseControl(self, device):  # pylint: disable=unused-argument
    '''Another client took control: Status 0xFF (Control Permission Lost) if subscribed; later commands
    get 0x05 until Request Control.'''
    dev = _device_obj(device)
    dev.ftms.controlled = False
    status = _chrc_by_uuid(dev.ftms, 0x2ADA)
    if status is not None and dev.ftms.connected and _has_active_session(status):
        _deliver(status, b'\xff')


@dbus.service.method(MOCK_IFACE, in_signature='ssuu', out_signature='')
def SetConnectBehaviour(self, device, mode, connect_ms, resolve_ms):  # pylint: disable=unused-argument
    '''How the next Connect() calls go:
       ok            after connect_ms: Connected=true, reply; after resolve_ms more: ServicesResolved=true
       abort         after connect_ms: Connected=true, Connected=false, Failed "le-connection-abort-by-local"
       hang          no reply until Disconnect() (then Failed "br-connection-canceled") or caller timeout
       no-resolve    like ok, but ServicesResolved never comes
       early-resolve ServicesResolved=true right after the reply, the GATT objects resolve_ms (at least
                     1 ms) later (bluez #1489); needs ForgetGattCache first, else the objects are there'''
    if str(mode) not in ('ok', 'abort', 'hang', 'no-resolve', 'early-resolve'):
        raise _mock_err('InvalidArguments', 'mode must be ok, abort, hang, no-resolve or early-resolve')
    state = _device_obj(device).ftms
    state.connect_mode = str(mode)
    state.connect_ms = int(connect_ms)
    state.resolve_ms = int(resolve_ms)


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def ForgetGattCache(self, device):  # pylint: disable=unused-argument
    '''As for a device never connected: GATT objects are removed now (InterfacesRemoved; notify
    sessions, recorded writes and SetValue changes go with them) and exported again during the next
    connection, before ServicesResolved; UUIDs go back to the advertised ones. Must be disconnected.'''
    dev = _device_obj(device)
    if dev.ftms.connected:
        raise _mock_err('Busy', 'disconnect first')
    if dev.ftms.exported:
        _unexport_gatt(dev)
    if list(dev.props[DEVICE_IFACE]['UUIDs']) != dev.ftms.advertised_uuids:
        _changed(dev, DEVICE_IFACE, {'UUIDs': _as(dev.ftms.advertised_uuids)})


@dbus.service.method(MOCK_IFACE, in_signature='su', out_signature='')
def SetDiscoveryFailures(self, adapter, count):  # pylint: disable=unused-argument
    '''The next count StartDiscovery() calls fail with InProgress (the kernel refused), no session.'''
    _adapter_obj(adapter).discovery['failures'] = int(count)


@dbus.service.method(MOCK_IFACE, in_signature='sn', out_signature='')
def SetRSSI(self, device, rssi):  # pylint: disable=unused-argument
    '''An advertisement was seen: RSSI := rssi with PropertiesChanged.'''
    dev = _device_obj(device)
    _changed(dev, DEVICE_IFACE, {'RSSI': dbus.Int16(rssi)})


# ---------------------------------------------------------------------------------------------------


def load(mock, parameters):
    '''Template entry point. parameters (optional, JSON with -p):
       {"adapter": "hci0", "machines": [{"address": "C0:…", "name": "SF-Bike-0001", "kind": "bike"}]}'''
    mockobject.objects[mock.path] = mock   # __main__ registers "/" only after load(); we need it now
    bluez5.load(mock, parameters)         # /org/bluez: AgentManager1, ProfileManager1
    old = getattr(mock, 'ftms_name_watch', None)
    if old is not None:
        old.remove()
    mock.ftms_name_watch = mock.connection.add_signal_receiver(
        _on_name_owner_changed, signal_name='NameOwnerChanged', dbus_interface='org.freedesktop.DBus',
        bus_name='org.freedesktop.DBus', path='/org/freedesktop/DBus')
    parameters = parameters or {}
    adapter = parameters.get('adapter')
    if adapter:
        _new_adapter(str(adapter), 'ftms-bridge-test')
        for m in parameters.get('machines', []):
            _new_machine(str(adapter), str(m['address']), str(m['name']), str(m.get('kind', 'bike')))
