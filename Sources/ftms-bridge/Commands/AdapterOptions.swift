import ArgumentParser
import BlueZ

/// `--adapter hci0` (repeatable) for the commands that talk to BlueZ directly, as
/// `machines.adapters` is for the daemon: discovery starts only there and machines heard only
/// elsewhere are left alone. A gateway whose second controller belongs to something else
/// (advertising, say) must not have a scan started on it.
struct AdapterOptions: ParsableArguments {
    @Option(name: .customLong("adapter"), help: "An adapter to use (hci0); repeat for more. Default: every adapter.")
    var adapters: [String] = []

    func validate() throws {
        for adapter in adapters where adapter.isEmpty || adapter.contains("/") {
            throw ValidationError("--adapter takes an adapter name such as hci0, not '\(adapter)'")
        }
    }

    /// The filter these adapters narrow.
    func filter(acceptGenericFTMS: Bool) -> MachineFilter {
        MachineFilter(acceptGenericFTMS: acceptGenericFTMS, adapters: Set(adapters))
    }
}
