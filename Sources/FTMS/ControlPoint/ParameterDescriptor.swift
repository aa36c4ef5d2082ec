/// A parameter: its field description and how its values are named.
public struct ParameterDescriptor: Sendable {
    public let field: FieldDescriptor
    public let naming: ValueNaming

    init(_ name: StaticString, _ format: WireFormat, _ scale: Scale = .one, naming: ValueNaming = .none) {
        self.field = FieldDescriptor(name, format, scale)
        self.naming = naming
    }
}
