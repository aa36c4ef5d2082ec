/// One D-Bus interface as BlueZ 5.66 declares it in its gdbus tables: methods with their
/// argument signatures, signals, and properties with their types and access.
///
/// gdbus dispatches a call only when interface, member *and* signature match a table entry;
/// anything else falls through to libdbus's `UnknownMethod`. The simulator routes with the same
/// tables, so a wrongly typed call fails here exactly as it would against bluetoothd, and the
/// introspection XML is generated from them.
struct InterfaceSchema: Sendable {
    struct Argument: Sendable {
        let name: String
        let type: String
    }

    struct Method: Sendable {
        let name: String
        let inputs: [Argument]
        let outputs: [Argument]

        var inputSignature: String { inputs.map(\.type).joined() }
    }

    struct Signal: Sendable {
        let name: String
        let arguments: [Argument]
    }

    struct Property: Sendable {
        let name: String
        let type: String
        let writable: Bool
    }

    let name: String
    let methods: [Method]
    let signals: [Signal]
    let properties: [Property]

    init(_ name: String, methods: [Method] = [], signals: [Signal] = [], properties: [Property] = []) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
    }

    func method(_ name: String, signature: String) -> Method? {
        methods.first { $0.name == name && $0.inputSignature == signature }
    }

    func property(_ name: String) -> Property? {
        properties.first { $0.name == name }
    }

    /// Where `name` sits in BlueZ's property table, which is the order GetAll and signals use.
    func propertyRank(_ name: String) -> Int {
        properties.firstIndex { $0.name == name } ?? properties.count
    }
}

extension InterfaceSchema {
    // Compact builders, so the tables read like BlueZ's own.
    static func method(_ name: String, _ inputs: [(String, String)] = [], _ outputs: [(String, String)] = []) -> InterfaceSchema.Method {
        InterfaceSchema.Method(
            name: name, inputs: inputs.map { InterfaceSchema.Argument(name: $0.0, type: $0.1) },
            outputs: outputs.map { InterfaceSchema.Argument(name: $0.0, type: $0.1) })
    }

    static func property(_ name: String, _ type: String, writable: Bool = false) -> InterfaceSchema.Property {
        InterfaceSchema.Property(name: name, type: type, writable: writable)
    }
}
