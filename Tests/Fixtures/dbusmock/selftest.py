#!/usr/bin/python3
'''Self-test of the fake BlueZ (ftms_bluez.py): starts nothing itself, talks to the fake named by
DBUS_SYSTEM_BUS_ADDRESS as a BlueZ client would, and checks types, orderings and FTMS behaviour.

    export "$(scripts/fake-bluez.sh start /tmp/ftms-bus)"
    /usr/bin/python3 Tests/Fixtures/dbusmock/selftest.py
    scripts/fake-bluez.sh stop /tmp/ftms-bus; scripts/test-bus.sh stop /tmp/ftms-bus

Each check prints one line; the last line is "selftest: N passed, M failed"; exit status 1 on failure.
It resets the fake (org.freedesktop.DBus.Mock.Reset) first, uses adapter hci0 and addresses
C0:11:22:33:44:01-03, and leaves its objects behind.
'''

import os
import socket
import sys
import time

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

BLUEZ = 'org.bluez'
MOCK = 'org.bluez.Mock'
DEV_IFACE = 'org.bluez.Device1'
CHRC_IFACE = 'org.bluez.GattCharacteristic1'
PROPS = 'org.freedesktop.DBus.Properties'
OM = 'org.freedesktop.DBus.ObjectManager'

BIKE_ADDR = 'C0:11:22:33:44:01'
ROWER_ADDR = 'C0:11:22:33:44:02'
BIKE = '/org/bluez/hci0/dev_C0_11_22_33_44_01'
ROWER = '/org/bluez/hci0/dev_C0_11_22_33_44_02'
FAKE = '/org/bluez/hci0/dev_C0_11_22_33_44_03'


def u(short):
    return f'{short:08x}-0000-1000-8000-00805f9b34fb'


class Client:
    '''One private bus connection; every incoming signal and every reply is appended to self.events in
    arrival order.'''

    def __init__(self, address):
        self.bus = dbus.bus.BusConnection(address)
        self.events = []
        self.bus.add_match_string("type='signal',sender='org.bluez'")
        self.bus.add_message_filter(self._filter)

    def _filter(self, _bus, msg):
        if msg.get_type() == dbus.lowlevel.MESSAGE_TYPE_SIGNAL and msg.get_interface() != 'org.freedesktop.DBus':
            self.events.append(('signal', msg.get_path(), msg.get_member(), msg.get_args_list()))
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    def call(self, path, iface, member, sig='', *args, tag=None, wait=True, timeout=5.0):
        msg = dbus.lowlevel.MethodCallMessage(BLUEZ, path, iface, member)
        if sig:
            msg.append(*args, signature=sig)
        box = {}
        tag = tag or member

        def handler(reply):
            if reply.get_type() == dbus.lowlevel.MESSAGE_TYPE_ERROR:
                box['error'] = (reply.get_error_name(), (reply.get_args_list() or [''])[0])
                self.events.append(('error', tag, box['error']))
            else:
                box['reply'] = reply.get_args_list()
                self.events.append(('reply', tag, box['reply']))

        box['pending'] = self.bus.send_message_with_reply(msg, handler, timeout)
        if wait:
            self.wait(lambda: 'reply' in box or 'error' in box, timeout + 1)
        return box

    def mock(self, member, sig='', *args):
        box = self.call('/', MOCK, member, sig, *args)
        if 'error' in box:
            raise RuntimeError(f'{member}: {box["error"]}')
        return box['reply'][0] if box['reply'] else None

    @staticmethod
    def wait(cond, seconds=3.0):
        ctx = GLib.MainContext.default()
        end = time.monotonic() + seconds
        while not cond() and time.monotonic() < end:
            ctx.iteration(False) or time.sleep(0.002)
        return cond()

    def settle(self, seconds=0.15):
        self.wait(lambda: False, seconds)

    def clear(self):
        self.events.clear()


passed = failed = 0


def check(name, ok, detail=''):
    global passed, failed  # pylint: disable=global-statement
    if ok:
        passed += 1
        print(f'ok   {name}')
    else:
        failed += 1
        print(f'FAIL {name} {detail}')


def pc(event):
    '''("PC", path, {changed}, [invalidated]) shorthand of a PropertiesChanged event.'''
    if event[0] == 'signal' and event[2] == 'PropertiesChanged':
        return (event[1], {str(k): v for k, v in event[3][1].items()}, [str(x) for x in event[3][2]])
    return None


def show(value):
    if isinstance(value, dbus.Array) and value.signature == 'y':
        return bytes(value).hex()
    if isinstance(value, dbus.Array):
        return '[' + ','.join(str(x) for x in value) + ']'
    return str(int(value)) if isinstance(value, dbus.Boolean) else str(value)


def summary(events):
    out = []
    for e in events:
        if e[0] == 'signal' and e[2] == 'PropertiesChanged':
            _, changed, inval = pc(e)
            parts = [f'{k}={show(v)}' for k, v in changed.items()] + [f'-{k}' for k in inval]
            out.append(f'PC {e[1].rsplit("/", 1)[-1]} ' + ','.join(parts))
        elif e[0] == 'signal' and e[2] in ('InterfacesAdded', 'InterfacesRemoved'):
            out.append(f'{e[2][10:]} {str(e[3][0]).replace(BIKE, "~")}')
        elif e[0] == 'signal':
            continue   # org.freedesktop.DBus.Mock.MethodCalled etc.
        elif e[0] == 'reply':
            out.append(f'reply {e[1]}')
        else:
            out.append(f'error {e[1]} {e[2][0]} {e[2][1]}')
    return out


def main():  # pylint: disable=too-many-statements,too-many-locals
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    address = os.environ.get('DBUS_SYSTEM_BUS_ADDRESS')
    if not address:
        print('selftest: DBUS_SYSTEM_BUS_ADDRESS is not set', file=sys.stderr)
        return 2
    c = Client(address)
    c.call('/', 'org.freedesktop.DBus.Mock', 'Reset')   # back to the template (and its -p parameters)
    existing = c.call('/', OM, 'GetManagedObjects')['reply'][0]
    if '/org/bluez/hci0' not in existing:
        c.mock('AddAdapter', 'ss', 'hci0', 'gw')
    for path in (BIKE, ROWER, FAKE):
        if path in existing:
            c.mock('VanishDevice', 's', path)
    c.mock('AddFTMSMachine', 'ssss', 'hci0', BIKE_ADDR, 'SF-Bike-0001', 'bike')
    c.mock('AddFTMSMachine', 'ssss', 'hci0', ROWER_ADDR, 'SF-Rower-0002', 'rower')
    c.mock('AddNameOnlyDevice', 'sss', 'hci0', 'C0:11:22:33:44:03', 'SF-Bike-FAKE')
    paths = {str(k): str(v) for k, v in c.mock('GetGattPaths', 's', BIKE).items()}
    ibd, status, cp, feature = paths['2ad2'], paths['2ada'], paths['2ad9'], paths['2acc']

    # --- object tree and types
    objs = c.call('/', OM, 'GetManagedObjects')['reply'][0]
    dev = objs[BIKE][DEV_IFACE]
    check('device path and Address', dev['Address'] == BIKE_ADDR and dev['AddressType'] == 'random')
    check('UUIDs hold fe01 and 1826', u(0xFE01) in dev['UUIDs'] and u(0x1826) in dev['UUIDs'])
    check('ServiceData is a{sv} of ay', dev['ServiceData'].signature == 'sv'
          and bytes(dev['ServiceData'][u(0x1826)]) == b'\x01\x20\x00')
    check('ManufacturerData is a{qv}', dev['ManufacturerData'].signature == 'qv'
          and isinstance(list(dev['ManufacturerData'].keys())[0], dbus.UInt16))
    check('RSSI is int16', isinstance(dev['RSSI'], dbus.Int16) and dev['RSSI'] == -60)
    check('Connected and ServicesResolved false', dev['Connected'] is not True and not dev['ServicesResolved'])
    expected = {
        BIKE + '/service000a': ('org.bluez.GattService1', u(0x180A)),
        BIKE + '/service000a/char000b': (CHRC_IFACE, u(0x2A29)),
        BIKE + '/service000a/char000d': (CHRC_IFACE, u(0x2A24)),
        BIKE + '/service000f': ('org.bluez.GattService1', u(0x1826)),
        BIKE + '/service000f/char0010': (CHRC_IFACE, u(0x2ACC)),
        BIKE + '/service000f/char0012': (CHRC_IFACE, u(0x2AD2)),
        BIKE + '/service000f/char0012/desc0014': ('org.bluez.GattDescriptor1', u(0x2902)),
        BIKE + '/service000f/char0015': (CHRC_IFACE, u(0x2ADA)),
        BIKE + '/service000f/char0018': (CHRC_IFACE, u(0x2AD9)),
        BIKE + '/service000f/char0018/desc001a': ('org.bluez.GattDescriptor1', u(0x2902)),
        BIKE + '/service000f/char001b': (CHRC_IFACE, u(0x2AD6)),
        ROWER + '/service000f/char0012': (CHRC_IFACE, u(0x2AD1)),
    }
    bad = [p for p, (i, uu) in expected.items() if p not in objs or objs[p].get(i, {}).get('UUID') != uu]
    check('GATT objects at handle paths with UUIDs', not bad, bad)
    ch = objs[cp][CHRC_IFACE]
    check('CP Flags write+indicate, Service link, Value ay', list(ch['Flags']) == ['write', 'indicate']
          and ch['Service'] == BIKE + '/service000f' and ch['Value'].signature == 'y')
    check('name-only device lacks fe01', u(0xFE01) not in objs[FAKE][DEV_IFACE]['UUIDs']
          and objs[FAKE][DEV_IFACE]['Name'] == 'SF-Bike-FAKE')

    # --- Connect: Connected=true, reply, ServicesResolved=true
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Connect')
    c.settle()
    s = summary(c.events)
    check('Connect order', s == ['PC dev_C0_11_22_33_44_01 Connected=1', 'reply Connect',
                                 'PC dev_C0_11_22_33_44_01 ServicesResolved=1'], s)
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Connect')
    check('Connect when connected: success, no signal', summary(c.events) == ['reply Connect'], summary(c.events))

    # --- reads
    r = c.call(paths['2a29'], CHRC_IFACE, 'ReadValue', 'a{sv}', {})['reply'][0]
    check('read 2A29', bytes(r) == b'SolidFocus')
    r = c.call(paths['2a24'], CHRC_IFACE, 'ReadValue', 'a{sv}', {})['reply'][0]
    check('read 2A24', bytes(r) == b'SF-Bike-M1')
    c.clear()
    r = c.call(feature, CHRC_IFACE, 'ReadValue', 'a{sv}', {})['reply'][0]
    check('read 2ACC, PropertiesChanged(Value) before reply', bytes(r).hex() == '865200000c200000'
          and summary(c.events) == ['PC char0010 Value=865200000c200000', 'reply ReadValue'], summary(c.events))
    r = c.call(paths['2ad6'], CHRC_IFACE, 'ReadValue', 'a{sv}', {'offset': dbus.UInt16(2)})['reply'][0]
    check('read 2AD6 with offset q', bytes(r).hex() == 'f0000a00')
    e = c.call(feature, CHRC_IFACE, 'ReadValue', 'a{sv}', {'offset': dbus.Int32(0)}).get('error')
    check('offset not q: InvalidArguments', e and e[0] == 'org.bluez.Error.InvalidArguments', e)
    e = c.call(ibd, CHRC_IFACE, 'ReadValue', 'a{sv}', {}).get('error')
    check('read notify-only char: NotPermitted', e == ('org.bluez.Error.NotPermitted', 'Read not permitted'), e)
    e = c.call(feature, CHRC_IFACE, 'WriteValue', 'ay', [1]).get('error')
    check('wrong signature: UnknownMethod', e and e[0] == 'org.freedesktop.DBus.Error.UnknownMethod', e)

    # --- notifications
    e = c.call('/', MOCK, 'NotifyValue', 'ss', ibd, '4402').get('error')
    check('NotifyValue refused before StartNotify', e and e[0] == 'org.bluez.Mock.Error.NotNotifying', e)
    c.clear()
    c.call(ibd, CHRC_IFACE, 'StartNotify')
    check('StartNotify: Notifying=true then reply',
          summary(c.events) == ['PC char0012 Notifying=1', 'reply StartNotify'], summary(c.events))
    c.clear()
    c.call(ibd, CHRC_IFACE, 'StartNotify')
    check('StartNotify again: success, no signal', summary(c.events) == ['reply StartNotify'], summary(c.events))
    c.clear()
    frame = '4402a00a5a00640000006e00'
    c.mock('NotifyValue', 'ss', ibd, frame)
    c.mock('NotifyValue', 'ss', ibd, frame)
    c.settle(0.05)
    values = [x for x in summary(c.events) if x.startswith('PC char0012')]
    check('identical notifications: one PropertiesChanged each', values == [f'PC char0012 Value={frame}'] * 2, values)
    d = c.call(paths['2ad2/2902'], 'org.bluez.GattDescriptor1', 'ReadValue', 'a{sv}', {})['reply'][0]
    check('CCCD reads 01 00 while subscribed', bytes(d) == b'\x01\x00')
    e = c.call(paths['2ad2/2902'], 'org.bluez.GattDescriptor1', 'WriteValue', 'aya{sv}', [1, 0], {}).get('error')
    check('CCCD write: NotPermitted', e == ('org.bluez.Error.NotPermitted', 'Write not permitted'), e)

    # --- Control Point
    req = {'type': 'request'}
    e = c.call(cp, CHRC_IFACE, 'WriteValue', 'aya{sv}', [0x00], req).get('error')
    check('CP write without indications: ATT 0xfd',
          e == ('org.bluez.Error.Failed', 'Operation failed with ATT error: 0xfd'), e)
    c.call(cp, CHRC_IFACE, 'StartNotify')
    c.call(status, CHRC_IFACE, 'StartNotify')

    def cp_write(value, label):
        c.clear()
        c.call(cp, CHRC_IFACE, 'WriteValue', 'aya{sv}', value, req, tag=label)
        c.settle(0.05)
        return [x for x in summary(c.events) if 'Notifying' not in x]

    s = cp_write([0x04, 100], 'set-res-early')
    check('CP 0x04 before Request Control: reply, then 80 04 05',
          s == ['reply set-res-early', 'PC char0018 Value=800405'], s)
    s = cp_write([0x00], 'request-control')
    check('CP Request Control: 80 00 01', s == ['reply request-control', 'PC char0018 Value=800001'], s)
    s = cp_write([0x04, 100], 'set-res-u8')
    check('CP 0x04 uint8: 80 04 01, then Status 07 64',
          s == ['reply set-res-u8', 'PC char0018 Value=800401', 'PC char0015 Value=0764'], s)
    c.mock('SetResistanceForm', 'ss', BIKE, 'sint16')
    s = cp_write([0x04, 100], 'set-res-u8b')
    check('CP 0x04 uint8 on a sint16 machine: 80 04 03', s == ['reply set-res-u8b', 'PC char0018 Value=800403'], s)
    s = cp_write([0x04, 100, 0], 'set-res-s16')
    check('CP 0x04 sint16: 80 04 01', s[:2] == ['reply set-res-s16', 'PC char0018 Value=800401'], s)
    s = cp_write([0x04, 0xF4, 0x01], 'set-res-range')
    check('CP 0x04 outside 0x2AD6 range: 80 04 03', s == ['reply set-res-range', 'PC char0018 Value=800403'], s)
    s = cp_write([0x05, 0xC8, 0x00], 'set-power')
    check('CP 0x05 200 W: 80 05 01, Status 08 c800',
          s == ['reply set-power', 'PC char0018 Value=800501', 'PC char0015 Value=08c800'], s)
    s = cp_write([0x13], 'unknown-op')
    check('CP unsupported op: 80 13 02', s == ['reply unknown-op', 'PC char0018 Value=801302'], s)
    writes = [bytes(w).hex() for w in c.mock('GetWrites', 's', cp)]
    check('GetWrites records every CP write', writes == ['00', '0464', '00', '0464', '0464', '046400', '04f401',
                                                          '05c800', '13'], writes)
    c.mock('SetIndicationOrder', 'ss', BIKE, 'before-reply')
    s = cp_write([0x07], 'start')
    check('indication before reply when asked', s == ['PC char0018 Value=800701', 'PC char0015 Value=04',
                                                       'reply start'], s)
    c.mock('SetIndicationOrder', 'ss', BIKE, 'after-reply')
    c.mock('SetWriteDelay', 'su', BIKE, 200)
    c.clear()
    first = c.call(cp, CHRC_IFACE, 'WriteValue', 'aya{sv}', [0x08, 0x02], req, tag='pause', wait=False)
    e = c.call(cp, CHRC_IFACE, 'WriteValue', 'aya{sv}', [0x07], req, tag='second').get('error')
    check('second CP write while one pending: InProgress', e == ('org.bluez.Error.InProgress', 'In Progress'), e)
    c.wait(lambda: 'reply' in first or 'error' in first)
    c.settle(0.05)
    s = [x for x in summary(c.events) if x.startswith(('reply', 'PC char0018'))]
    check('delayed CP reply then indication', s == ['reply pause', 'PC char0018 Value=800801'], s)
    c.mock('LoseControl', 's', BIKE)
    c.settle(0.05)
    s = cp_write([0x07], 'after-loss')
    check('after LoseControl: 80 07 05', s[-1] == 'PC char0018 Value=800705', s)

    # --- link loss during a pending write, then reconnect keeps notify sessions
    c.clear()
    pending = c.call(cp, CHRC_IFACE, 'WriteValue', 'aya{sv}', [0x00], req, tag='lost', wait=False)
    c.settle(0.05)
    c.mock('DisconnectDevice', 'ss', 'hci0', BIKE_ADDR)
    c.wait(lambda: 'error' in pending or 'reply' in pending)
    s = summary(c.events)
    check('link loss: pending write fails, ServicesResolved=false before Connected=false',
          s == ['error lost org.bluez.Error.Failed Operation failed',
                'PC dev_C0_11_22_33_44_01 ServicesResolved=0', 'PC dev_C0_11_22_33_44_01 Connected=0',
                'reply DisconnectDevice'], s)
    c.mock('SetWriteDelay', 'su', BIKE, 0)
    e = c.call(feature, CHRC_IFACE, 'ReadValue', 'a{sv}', {}).get('error')
    check('read while disconnected: Failed "Not connected"', e == ('org.bluez.Error.Failed', 'Not connected'), e)
    e = c.call(ibd, CHRC_IFACE, 'StartNotify').get('error')
    check('StartNotify again while link down: InProgress', e and e[0] == 'org.bluez.Error.InProgress', e)
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Disconnect')
    check('Disconnect when disconnected: success', summary(c.events) == ['reply Disconnect'], summary(c.events))
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Connect')
    c.settle()
    s = summary(c.events)
    check('reconnect: no InterfacesAdded, Notifying kept', s == [
        'PC dev_C0_11_22_33_44_01 Connected=1', 'reply Connect',
        'PC dev_C0_11_22_33_44_01 ServicesResolved=1'], s)
    c.clear()
    c.mock('NotifyValue', 'ss', ibd, frame)
    check('notifications flow after reconnect without a new StartNotify',
          any(x.startswith('PC char0012 Value=') for x in summary(c.events)))
    s = cp_write([0x04, 100, 0], 'after-reconnect')
    check('control is lost with the link: 80 04 05', s == ['reply after-reconnect', 'PC char0018 Value=800405'], s)

    # --- Disconnect order
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Disconnect')
    s = summary(c.events)
    check('Disconnect: ServicesResolved=false, Connected=false, reply', s == [
        'PC dev_C0_11_22_33_44_01 ServicesResolved=0', 'PC dev_C0_11_22_33_44_01 Connected=0', 'reply Disconnect'], s)

    # --- connect failure modes
    c.mock('SetConnectBehaviour', 'ssuu', BIKE, 'abort', 0, 0)
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Connect')
    s = summary(c.events)
    check('abort: Connected true/false then le-connection-abort-by-local', s == [
        'PC dev_C0_11_22_33_44_01 Connected=1', 'PC dev_C0_11_22_33_44_01 Connected=0',
        'error Connect org.bluez.Error.Failed le-connection-abort-by-local'], s)
    c.mock('SetConnectBehaviour', 'ssuu', BIKE, 'hang', 0, 0)
    c.clear()
    hanging = c.call(BIKE, DEV_IFACE, 'Connect', tag='c1', wait=False)
    c.settle(0.05)
    e = c.call(BIKE, DEV_IFACE, 'Connect', tag='c2').get('error')
    check('second Connect while pending: Failed "Operation already in progress"',
          e == ('org.bluez.Error.Failed', 'Operation already in progress'), e)
    c.call(BIKE, DEV_IFACE, 'Disconnect')
    c.wait(lambda: 'error' in hanging)
    check('Disconnect during Connect: br-connection-canceled',
          hanging.get('error') == ('org.bluez.Error.Failed', 'br-connection-canceled'), hanging)
    c.mock('SetConnectBehaviour', 'ssuu', BIKE, 'ok', 0, 0)

    # --- first connection (empty cache): objects exported before ServicesResolved
    c.mock('ForgetGattCache', 's', BIKE)
    c.clear()
    c.call(BIKE, DEV_IFACE, 'Connect')
    c.settle()
    s = summary(c.events)
    added = [x for x in s if x.startswith('Added')]
    check('first connect: Connected, reply, UUIDs, InterfacesAdded parent-first, ServicesResolved',
          s[:3] == ['PC dev_C0_11_22_33_44_01 Connected=1', 'reply Connect',
                    'PC dev_C0_11_22_33_44_01 UUIDs=[' + ','.join(u(x) for x in (0x1800, 0x1801, 0x180A, 0x1826,
                                                                                0xFE01)) + ']']
          and len(added) == 16 and added[0] == 'Added ~/service0001'
          and added.index('Added ~/service000f') < added.index('Added ~/service000f/char0018')
          < added.index('Added ~/service000f/char0018/desc001a')
          and s[-1] == 'PC dev_C0_11_22_33_44_01 ServicesResolved=1', s)

    # --- AcquireNotify
    box = c.call(ibd, CHRC_IFACE, 'AcquireNotify', 'a{sv}', {})
    check('AcquireNotify on a fresh 2AD2 gives fd and MTU', 'reply' in box, box.get('error'))
    if 'reply' in box:
        fd, mtu = box['reply']
        sock = socket.socket(fileno=fd.take())
        c.mock('NotifyValue', 'ss', ibd, '4402')
        sock.settimeout(1)
        data = sock.recv(512)
        check('notification arrives as one datagram', data == b'\x44\x02' and mtu == 247, (data, mtu))
        c.call(BIKE, DEV_IFACE, 'Disconnect')
        sock.settimeout(1)
        check('HUP/EOF on disconnect', sock.recv(512) == b'')
        sock.close()
        c.call(BIKE, DEV_IFACE, 'Connect')
        c.settle()
    e = c.call(cp, CHRC_IFACE, 'AcquireNotify', 'a{sv}', {}).get('error')
    check('AcquireNotify on indicate-only CP: NotSupported (5.66)', e and e[0] == 'org.bluez.Error.NotSupported', e)

    # --- notify sessions end when their client leaves the bus
    other = Client(address)
    other.call(status, CHRC_IFACE, 'StartNotify')
    c.clear()
    other.bus.close()
    c.settle(0.2)
    s = summary(c.events)
    check('client leaves: its session ends, Notifying=false', s == ['PC char0015 Notifying=0'], s)

    # --- properties
    e = c.call(BIKE, PROPS, 'Set', 'ssv', DEV_IFACE, 'Name', dbus.String('x', variant_level=1)).get('error')
    check('Set read-only property: PropertyReadOnly', e and e[0] == 'org.freedesktop.DBus.Error.PropertyReadOnly', e)
    c.clear()
    c.call(BIKE, PROPS, 'Set', 'ssv', DEV_IFACE, 'Trusted', dbus.Boolean(True, variant_level=1))
    check('Set Trusted emits PropertiesChanged', summary(c.events)[0] == 'PC dev_C0_11_22_33_44_01 Trusted=1')

    # --- discovery
    a = '/org/bluez/hci0'
    ai = 'org.bluez.Adapter1'
    e = c.call(a, ai, 'SetDiscoveryFilter', 'a{sv}', {'RSSI': dbus.Int32(-70)}).get('error')
    check('filter RSSI as int32: InvalidArguments', e and e[0] == 'org.bluez.Error.InvalidArguments', e)
    box = c.call(a, ai, 'SetDiscoveryFilter', 'a{sv}', {'UUIDs': dbus.Array([u(0xFE01)], signature='s'),
                                                        'Transport': 'le', 'DuplicateData': False})
    check('filter UUIDs/Transport/DuplicateData accepted', 'reply' in box, box.get('error'))
    c.clear()
    c.call(a, ai, 'StartDiscovery')
    e = c.call(a, ai, 'StartDiscovery').get('error')
    check('StartDiscovery: Discovering=true; twice: InProgress',
          summary(c.events)[:2] == ['PC hci0 Discovering=1', 'reply StartDiscovery']
          and e and e[0] == 'org.bluez.Error.InProgress', (summary(c.events), e))
    c.clear()
    c.call(a, ai, 'StopDiscovery')
    s = summary(c.events)
    check('StopDiscovery: Discovering=false, RSSI invalidated on unconnected devices',
          s[0] == 'PC hci0 Discovering=0' and 'PC dev_C0_11_22_33_44_02 -RSSI' in s, s)
    e = c.call(a, ai, 'StopDiscovery').get('error')
    check('StopDiscovery without session: Failed "No discovery started"',
          e == ('org.bluez.Error.Failed', 'No discovery started'), e)

    # --- RemoveDevice
    c.clear()
    c.call(a, ai, 'RemoveDevice', 'o', dbus.ObjectPath(BIKE))
    s = summary(c.events)
    removed = [x for x in s if x.startswith('Removed')]
    check('RemoveDevice: link down, children removed first, device last',
          s[:2] == ['PC dev_C0_11_22_33_44_01 ServicesResolved=0', 'PC dev_C0_11_22_33_44_01 Connected=0']
          and removed[0] == 'Removed ~/service000f/char001d' and removed[-1] == 'Removed ~'
          and len(removed) == 17, s)

    print(f'selftest: {passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
