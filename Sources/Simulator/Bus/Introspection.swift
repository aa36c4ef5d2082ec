/// Introspection XML in the two shapes a BlueZ peer produces.
enum Introspection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// gdbus's `generate_introspection_xml` for a registered object: its interfaces with
    /// methods, signals and properties, then its children as `<node>`s.
    static func object(interfaces: [String], children: [String]) -> String {
        var xml = doctype + "<node>"
        for name in interfaces {
            xml += "<interface name=\"\(name)\">"
            if let schema = BusNames.schemas[name] {
                for method in schema.methods {
                    xml += "<method name=\"\(method.name)\">"
                    for argument in method.inputs { xml += "<arg name=\"\(argument.name)\" type=\"\(argument.type)\" direction=\"in\"/>" }
                    for argument in method.outputs { xml += "<arg name=\"\(argument.name)\" type=\"\(argument.type)\" direction=\"out\"/>" }
                    xml += "</method>"
                }
                for signal in schema.signals {
                    xml += "<signal name=\"\(signal.name)\">"
                    for argument in signal.arguments { xml += "<arg name=\"\(argument.name)\" type=\"\(argument.type)\"/>" }
                    xml += "</signal>"
                }
                for property in schema.properties {
                    xml += "<property name=\"\(property.name)\" type=\"\(property.type)\" access=\"\(property.writable ? "readwrite" : "read")\"></property>"
                }
            }
            xml += "</interface>"
        }
        for child in children { xml += "<node name=\"\(child)\"/>" }
        return xml + "</node>"
    }

    /// libdbus's default handler for a path that only leads to objects (`/org`).
    static func node(children: [String]) -> String {
        doctype + "<node>\n" + children.map { "  <node name=\"\($0)\"/>\n" }.joined() + "</node>\n"
    }
}
