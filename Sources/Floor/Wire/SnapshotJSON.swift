internal import FoundationEssentials
internal import JSON
internal import Workout

/// A ``SessionSnapshot`` as the JSON value a ``MirroredCheckpoint`` carries: the snapshot's own
/// `Codable` form, the very JSON the store keeps, so an adopter restores what the holder saved.
///
/// Foundation's coders only bridge `Codable` to bytes here; the checkpoint around the snapshot is
/// read and written by JSON's reader and writer like every other floor message.
enum SnapshotJSON {
    static func value(_ snapshot: SessionSnapshot) throws(FloorWireError) -> JSONValue {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(snapshot)
        } catch {
            throw FloorWireError("checkpoint: the snapshot cannot be written as JSON (\(error))")
        }
        do {
            return try JSONReader.read(Array(bytes))
        } catch {
            throw FloorWireError("checkpoint: the snapshot's JSON does not read back (\(error))")
        }
    }

    static func snapshot(_ value: JSONValue) throws(FloorWireError) -> SessionSnapshot {
        let snapshot: SessionSnapshot
        do {
            snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(JSONWriter.bytes(value)))
        } catch {
            throw FloorWireError("checkpoint: snapshot is not a session snapshot (\(error))")
        }
        guard SessionSnapshot.readableVersions.contains(snapshot.version) else {
            throw FloorWireError("checkpoint: snapshot layout version \(snapshot.version), expected at most \(SessionSnapshot.currentVersion)")
        }
        return snapshot
    }
}
