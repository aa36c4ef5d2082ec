public import Clocks
import Foundation
import GRDB
public import Workout

/// A damaged database the daemon moved aside to start on a fresh one.
public struct MovedAside: Sendable, Hashable {
    /// Where the damaged file is now.
    public var path: String
    /// Why it was moved: SQLite's words.
    public var reason: String
    public var at: UTCTime
    /// The fresh store kept the damaged one's device id (else the backend sees a new gateway).
    public var keptDeviceID: Bool
    /// The fresh store kept its login (else `ftms-bridge login` is needed).
    public var keptLogin: Bool
}

extension GatewayStore {
    /// The daemon's open (contract §6: a bad page does not stop the gym). As
    /// ``init(directory:clock:seriesRetention:reserve:machineIDPath:)``, except that a database that is
    /// *damaged* (SQLite finds it corrupt, or not a database) is moved aside, renamed with the
    /// time and never deleted (``DamagedFiles``), and a fresh one is made in its place, keeping
    /// the device id (read out of the damaged file, else its own file, ``DeviceIdentityFile``)
    /// and the login when it can be read: the backend binds the account to the device id. The
    /// fresh store's open puts back the sessions the session journal holds (``SessionJournal``);
    /// the rest wait in the damaged file for `ftms-bridge salvage`.
    ///
    /// A database that is merely unusable (a read-only file system, no permission, a newer
    /// schema, an I/O error) is not damaged and is never moved: that error is thrown as it is.
    public static func openMovingDamagedAside(
        directory: String, clock: WallClock = .system, seriesRetention: Int = GatewayStore.defaultSeriesRetention,
        reserve: StoreReserve? = nil, machineIDPath: String? = nil
    ) throws -> (store: GatewayStore, movedAside: MovedAside?) {
        do {
            return (try GatewayStore(
                directory: directory, clock: clock, seriesRetention: seriesRetention, reserve: reserve, machineIDPath: machineIDPath), nil)
        } catch StoreError.damaged(let path, let reason) {
            let now = clock.now()
            let moved = try DamagedFiles.moveAside(path, at: now)
            var identity = StoreIdentity(salvagedFrom: moved)
            identity.machineIDPath = machineIDPath
            // The id it had: read out of the damaged file, else its own file beside it.
            let previous = identity.deviceID ?? DeviceIdentityFile(directory: directory).read()
            let store = try GatewayStore(
                directory: directory, clock: clock, seriesRetention: seriesRetention, reserve: reserve, identity: identity)
            return (store, MovedAside(
                path: moved, reason: reason, at: now, keptDeviceID: previous != nil && store.deviceID == previous,
                keptLogin: identity.account != nil))
        }
    }
}

/// What a fresh store takes over from a damaged one: the device id, and the login row.
struct StoreIdentity: Sendable {
    var deviceID: String?
    var account: AccountRow?
    /// Where a store with no id anywhere derives one from (``MachineAppID``).
    var machineIDPath: String?

    init() {}

    /// Read through SQLite where it can, else the device id from the file's bytes.
    init(salvagedFrom path: String) {
        if let contents = try? DamagedStoreReader(path: path).read(sessions: false) {
            deviceID = contents.deviceID.flatMap(Self.canonical)
            account = contents.account
        }
        if deviceID == nil { deviceID = DamagedStoreReader.deviceIDFromBytes(of: path) }
    }

    private static func canonical(_ id: String) -> String? {
        UUID(uuidString: id).map { $0.uuidString.lowercased() }
    }
}
