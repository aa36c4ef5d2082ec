@testable import BlueZ
import Testing

/// Which answers end the exit's wait for bluetoothd to hang up an acquired socket
/// (``MachineLink``'s exit order, docs/bluez.md): only those saying bluetoothd, or the
/// characteristic, is gone. In the VM, bluetoothd 5.66 aborted (`munmap_chunk(): invalid
/// pointer`) and the guest's system bus then answered `Properties.Get` with
/// `Spawn.ChildExited` (its activation of `org.bluez` failed), which the wait took for a
/// passing fault and asked again until the daemon's stop timed out.
@Suite("The exit's wait for a hang-up")
struct HangUpWaitTests {
    @Test(arguments: [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.Spawn.ChildExited",
        "org.freedesktop.DBus.Error.Spawn.ExecFailed", "org.freedesktop.DBus.Error.Spawn.ServiceNotFound",
    ])
    func answersSayingBluetoothdIsGoneEndTheWait(_ name: String) {
        #expect(MachineLink.isGone(name))
    }

    /// A slow or busy bluetoothd is asked again: ending the wait on these would send
    /// `Disconnect` while it still holds the socket.
    @Test(arguments: [
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
        "org.freedesktop.DBus.Error.LimitsExceeded", "org.bluez.Error.Failed", "org.bluez.Error.InProgress",
    ])
    func answersFromALiveOrBusyBluetoothdDoNot(_ name: String) {
        #expect(!MachineLink.isGone(name))
    }
}
