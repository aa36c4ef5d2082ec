/// A training as the backend sent it, every field read leniently (``JSONField``); unknown
/// fields are ignored, as SolidFocus's clients must let the backend add them.
struct TrainingRecord: Decodable {
    private enum Key: String, CodingKey {
        case id, title, duration, stages
        case machineType = "machine_type"
    }

    /// nil when the element is not an object at all.
    var id: JSONField<String> = .absent
    var title: JSONField<String> = .absent
    var machineType: JSONField<String> = .absent
    var duration: JSONField<Double> = .absent
    var stages: JSONField<[StageRecord]> = .absent
    var isObject = true

    init(from decoder: any Decoder) {
        guard let fields = try? decoder.container(keyedBy: Key.self) else {
            isObject = false
            return
        }
        id = fields.field(.id)
        title = fields.field(.title)
        machineType = fields.field(.machineType)
        duration = fields.field(.duration)
        stages = fields.field(.stages)
    }
}

/// One stage as the backend sent it.
struct StageRecord: Decodable {
    private enum Key: String, CodingKey {
        case start, duration
        case resistance = "target_resistance_level"
        case power = "target_power_w"
    }

    var start: JSONField<Double> = .absent
    var duration: JSONField<Double> = .absent
    var resistance: JSONField<Double> = .absent
    var power: JSONField<Double> = .absent
    var isObject = true

    init(from decoder: any Decoder) {
        guard let fields = try? decoder.container(keyedBy: Key.self) else {
            isObject = false
            return
        }
        start = fields.field(.start)
        duration = fields.field(.duration)
        resistance = fields.field(.resistance)
        power = fields.field(.power)
    }
}

/// `{"trainings": [...]}`, the shape of `GET /trainings` itself (the store caches the bare list).
struct TrainingListEnvelope: Decodable {
    var trainings: [TrainingRecord]
}

/// Any JSON at all: decoding it tells valid JSON of the wrong shape from text that is not JSON.
struct AnyJSON: Decodable {
    init(from decoder: any Decoder) {}
}
