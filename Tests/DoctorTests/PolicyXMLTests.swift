import Testing
@testable import Doctor

@Suite("Busconfig XML reader")
struct PolicyXMLTests {
    @Test func readsElementsAttributesAndLinesPastCommentsAndTheDoctype() throws {
        let text = """
            <?xml version="1.0"?>
            <!-- a comment with <tags> and "quotes" -->
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <policy group='bluetooth'>
                <allow send_destination="org.bluez" send_interface="a&amp;b&#x41;&#66;"/>
              </policy>
              <user>root</user>
            </busconfig>
            """
        let root = try PolicyXML.parse(text)
        #expect(root.name == "busconfig")
        #expect(root.line == 5)
        #expect(root.children.map(\.name) == ["policy", "user"])
        let policy = root.children[0]
        #expect(policy.attributes == ["group": "bluetooth"])
        #expect(policy.children.first?.attributes == ["send_destination": "org.bluez", "send_interface": "a&bAB"])
        #expect(policy.children.first?.line == 7)
    }

    @Test(arguments: [
        ("<busconfig>\n<policy>\n</busconfig>", 3, "</busconfig> closes <policy>"),
        ("<busconfig>\n  <policy context=default/>\n</busconfig>", 2, "must be quoted"),
        ("<busconfig><a x=\"1\" x=\"2\"/></busconfig>", 1, "given twice"),
        ("<busconfig>\n<policy>\n", 2, "<policy> is never closed"),
        ("hello <busconfig/>", 1, "text outside the root element"),
        ("<!-- only a comment -->", 1, "no element at all"),
        ("<busconfig/><busconfig/>", 1, "a second root element"),
        ("<busconfig>\n<!-- never closed\n</busconfig>", 2, "comment is never closed"),
        ("<busconfig><a v=\"&bogus;\"/></busconfig>", 1, "unknown entity"),
        ("<busconfig><a v=\"1\"w=\"2\"/></busconfig>", 1, "separated by spaces"),
    ])
    func refusesMalformedDocumentsNamingTheLine(text: String, line: Int, reason: String) {
        #expect(throws: PolicyXML.Malformed.self) { try PolicyXML.parse(text) }
        do {
            _ = try PolicyXML.parse(text)
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        }
    }
}
