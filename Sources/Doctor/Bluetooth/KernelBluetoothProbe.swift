import CBluetooth

#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel for a Bluetooth socket: the one test that tells "this kernel has no
/// Bluetooth" (EAFNOSUPPORT) from "Bluetooth is there but no controller is attached".
package struct KernelBluetoothProbe: Sendable {
    /// Opens and closes an `AF_BLUETOOTH` HCI socket: `nil` when that worked, else the errno.
    package var socketError: @Sendable () -> Int32?

    package init(socketError: @escaping @Sendable () -> Int32?) {
        self.socketError = socketError
    }

    /// The real kernel.
    package static let system = KernelBluetoothProbe {
        let descriptor = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        return nil
    }
}
