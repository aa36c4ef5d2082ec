import TestSupport
import Testing
@testable import Doctor

/// The D-Bus policy check against policy files written like the real ones.
@Suite("D-Bus policy check")
struct PolicyCheckTests {
    /// The DOCTYPE, the root element and root's own policy, as every BlueZ policy file starts
    /// (five lines: rule line numbers below count them).
    static let prologue = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <policy user="root">
            <allow own="org.bluez"/>
            <allow send_destination="org.bluez"/>
        """

    /// BlueZ 5.66's bluetooth.conf as Debian 12 installs it: root owns the name, the default
    /// context may call it, and Debian adds the bluetooth group.
    static let debian12 = """
        <!-- This configuration file specifies the required security policies
             for Bluetooth core daemon to work. -->
        \(prologue)
            <allow send_interface="org.bluez.Agent1"/>
            <allow send_interface="org.freedesktop.DBus.ObjectManager"/>
          </policy>
          <policy group="bluetooth">
            <allow send_destination="org.bluez"/>
          </policy>
          <policy context="default">
            <allow send_destination="org.bluez"/>
          </policy>
        </busconfig>
        """

    /// The old upstream file: denied by default, open to root, lp and the console only.
    static let old = """
        \(prologue)
          </policy>
          <policy at_console="true">
            <allow send_destination="org.bluez"/>
          </policy>
          <policy group="lp">
            <allow send_destination="org.bluez"/>
          </policy>
          <policy context="default">
            <deny send_destination="org.bluez"/>
          </policy>
        </busconfig>
        """

    static let nobody = "ftms-doctor-no-such-user"

    func check(_ files: [String: String], user: String, group: String = "bluetooth") throws -> CheckResult {
        let directory = try TemporaryDirectory()
        for (name, text) in files { try directory.write("policy/\(name)", text) }
        return PolicyCheck(directories: [directory.file("policy")], user: user, group: group).run()
    }

    @Test func debian12GrantsTheBluetoothGroupButTheUserIsMissing() throws {
        let result = try check(["bluetooth.conf": Self.debian12], user: Self.nobody)
        #expect(result.status == .warning)
        #expect(result.detail == "org.bluez is allowed for group bluetooth at bluetooth.conf:13, but user \(Self.nobody) does not exist")
        #expect(result.data["allowed"] == true)
        #expect(result.data["user_exists"] == false)
        #expect(result.data["grants"] == ["user root at bluetooth.conf:8", "group bluetooth at bluetooth.conf:13", "context default at bluetooth.conf:16"])
    }

    @Test func theOldUpstreamPolicyDeniesEveryoneButRootAndLp() throws {
        let result = try check(["bluetooth.conf": Self.old], user: Self.nobody)
        #expect(result.status == .failed)
        #expect(result.detail == "\(Self.nobody) may not call org.bluez: denied for context default at bluetooth.conf:15")
        #expect(result.data["allowed"] == false)
    }

    @Test func anExistingUserInTheGrantedGroupIsOK() throws {
        let policy = """
            <busconfig>
              <policy context="default"><deny send_destination="org.bluez"/></policy>
              <policy group="root"><allow send_destination="org.bluez"/></policy>
            </busconfig>
            """
        let result = try check(["a.conf": policy], user: "root", group: "root")
        #expect(result.status == .ok, "\(result.detail)")
        #expect(result.detail.hasPrefix("root (groups root) may call org.bluez: allowed for group root at a.conf:3"))
        #expect(result.data["in_group"] == true)
    }

    @Test func allowedOnlyByTheDefaultContextIsAWarning() throws {
        let result = try check(["bluetooth.conf": Self.debian12], user: "root", group: "no-such-group-xyz")
        // root is allowed by its own user policy, which comes after the default context.
        #expect(result.status == .ok)
        let onlyDefault = "<busconfig><policy context=\"default\"><allow send_destination=\"org.bluez\"/></policy></busconfig>"
        let warned = try check(["x.conf": onlyDefault], user: "root", group: "no-such-group-xyz")
        #expect(warned.status == .warning)
        #expect(warned.detail.contains("only because it is allowed for context default"))
    }

    @Test func mandatoryDenyWinsAndNarrowedAllowsDoNotCount() throws {
        let mandatory = """
            <busconfig>
              <policy user="root"><allow send_destination="org.bluez"/></policy>
              <policy context="mandatory"><deny send_destination="org.bluez"/></policy>
            </busconfig>
            """
        #expect(try check(["m.conf": mandatory], user: "root", group: "root").status == .failed)
        let narrowed = """
            <busconfig>
              <policy group="root"><allow send_destination="org.bluez" send_interface="org.bluez.Adapter1"/></policy>
            </busconfig>
            """
        let result = try check(["n.conf": narrowed], user: "root", group: "root")
        #expect(result.status == .failed)
        #expect(result.detail == "root may not call org.bluez: no policy file allows it")
    }

    @Test func aMalformedFileIsNamedAndTheRestStillDecides() throws {
        let result = try check([
            "bluetooth.conf": Self.debian12,
            "zz-broken.conf": "<busconfig>\n  <policy user=\"x\">\n</busconfig>\n",
        ], user: "root", group: "root")
        #expect(result.status == .warning)
        #expect(result.detail.contains("zz-broken.conf is not well-formed XML (line 3: </busconfig> closes <policy> (line 2))"))
        #expect(result.data["allowed"] == true)
    }

    @Test func policyFilesThatNeverMentionBlueZ() throws {
        let other = "<busconfig><policy context=\"default\"><allow send_destination=\"org.freedesktop.hostname1\"/></policy></busconfig>"
        let result = try check(["a.conf": other, "b.conf": other], user: Self.nobody)
        #expect(result.status == .failed)
        #expect(result.detail == "\(Self.nobody) may not call org.bluez: none of the 2 policy files speaks of org.bluez (is bluez installed?)")
    }

    @Test func noPolicyFilesAtAll() throws {
        let result = try check([:], user: Self.nobody)
        #expect(result.status == .failed)
        #expect(result.detail.contains("no policy files in"))
        #expect(result.detail.contains("is bluez installed?"))
    }
}
