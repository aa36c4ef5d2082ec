import FTMS

/// The frames the demo decodes when no machine is around: one of each characteristic, from
/// real machines where `Tests/FTMSTests/Vectors/real-ftms-frames.md` has one, so a new operator sees
/// what the gateway makes of real traffic in the first minute.
struct DemoFrame {
    let label: String
    let characteristic: Characteristic
    let hex: String

    static let embedded: [DemoFrame] = [
        DemoFrame(label: "Schwinn IC4 ride", characteristic: .indoorBikeData, hex: "44 02 da 02 02 01 22 01 00"),
        DemoFrame(label: "Elite Direto XR ride", characteristic: .indoorBikeData, hex: "54 08 95 04 3a 00 14 03 00 27 00 80 03"),
        DemoFrame(label: "JetBlack Volt (resistance 20)", characteristic: .indoorBikeData, hex: "64 02 c1 08 00 00 14 00 1c 00 00"),
        DemoFrame(label: "Viking Pro V stroke", characteristic: .rowerData, hex: "f8 00 26 0b 00 c7 00 00 00 2c 00 1b 00 02 00"),
        DemoFrame(label: "Viking Pro V energy (More Data)", characteristic: .rowerData, hex: "01 01 04 00 c5 01 07"),
        DemoFrame(label: "BH Fitness bike (repurposed fields)", characteristic: .indoorBikeData, hex: "54 0f 00 00 82 00 00 00 00 54 00 00 00 00 54 00 00 7b 00 00"),
        DemoFrame(label: "BH Fitness features", characteristic: .fitnessMachineFeature, hex: "8e 5e 00 00 0e 20 00 00"),
        DemoFrame(label: "WLT-BK resistance range", characteristic: .supportedResistanceLevelRange, hex: "0a 00 f0 00 0a 00"),
        DemoFrame(label: "Request Control", characteristic: .fitnessMachineControlPoint, hex: "00"),
        DemoFrame(label: "Set Target Resistance 9.3", characteristic: .fitnessMachineControlPoint, hex: "04 5d"),
        DemoFrame(label: "Response: success", characteristic: .fitnessMachineControlPoint, hex: "80 00 01"),
        DemoFrame(label: "Started by user", characteristic: .fitnessMachineStatus, hex: "04"),
        DemoFrame(label: "Think XX01 status, parameter missing", characteristic: .fitnessMachineStatus, hex: "08"),
        DemoFrame(label: "Training status idle", characteristic: .trainingStatus, hex: "01 01"),
    ]
}
