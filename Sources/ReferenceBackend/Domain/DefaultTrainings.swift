import JSON
import FoundationEssentials

/// The course list a fresh backend serves (`GET /trainings`), until `PUT /_admin/trainings`
/// replaces it. Shaped after SolidFocus Flow 1 §4.2–4.3 and Flow 3: metadata, `video_url`,
/// `video_size`, and stages that set resistance or power over time.
enum DefaultTrainings {
    static var list: [JSONValue] {
        (try? JSONReader.read(json))?.array ?? []
    }

    /// Why `training` is not a course a client could cache, or `nil`: a string `id`, and the
    /// documented fields, when present, of their documented types.
    static func problem(with training: JSONValue) -> String? {
        guard training.isObject else { return "a training must be an object" }
        guard let id = training["id"]?.string, !id.isEmpty else { return "every training needs a string id" }
        for key in ["title", "description", "machine_type", "difficulty", "cover_url", "video_url", "updated_at"] {
            if let value = training[key], value.string == nil { return "training \(id): \(key) must be a string" }
        }
        for key in ["duration", "video_size"] {
            if let value = training[key], (value.integer ?? -1) < 0 { return "training \(id): \(key) must be a whole number ≥ 0" }
        }
        if let stages = training["stages"], case .array = stages {} else if training["stages"] != nil {
            return "training \(id): stages must be an array"
        }
        return nil
    }

    private static let json = #"""
        [
          {"id": "tr-bike-easy-20", "title": "Easy Spin 20", "machine_type": "bike", "difficulty": "easy",
           "description": "Twenty minutes of steady low resistance.", "duration": 1200,
           "cover_url": "https://media.solidfocus.example/trainings/tr-bike-easy-20.jpg",
           "video_url": "https://media.solidfocus.example/trainings/tr-bike-easy-20.mp4", "video_size": 52428800,
           "updated_at": "2025-12-01T00:00:00Z",
           "stages": [{"start": 0, "duration": 300, "target_resistance_level": 3},
                      {"start": 300, "duration": 600, "target_resistance_level": 5},
                      {"start": 900, "duration": 300, "target_resistance_level": 3}]},
          {"id": "tr-bike-intervals-30", "title": "Power Intervals 30", "machine_type": "bike", "difficulty": "hard",
           "description": "Six rounds of two minutes hard, two minutes easy.", "duration": 1800,
           "cover_url": "https://media.solidfocus.example/trainings/tr-bike-intervals-30.jpg",
           "video_url": "https://media.solidfocus.example/trainings/tr-bike-intervals-30.mp4", "video_size": 78643200,
           "updated_at": "2025-12-01T00:00:00Z",
           "stages": [{"start": 0, "duration": 360, "target_power_w": 100},
                      {"start": 360, "duration": 120, "target_power_w": 250},
                      {"start": 480, "duration": 120, "target_power_w": 120},
                      {"start": 600, "duration": 1200, "target_power_w": 180}]},
          {"id": "tr-rower-steady-15", "title": "Steady Row 15", "machine_type": "rower", "difficulty": "medium",
           "description": "Fifteen minutes at an even stroke rate.", "duration": 900,
           "cover_url": "https://media.solidfocus.example/trainings/tr-rower-steady-15.jpg",
           "video_url": "https://media.solidfocus.example/trainings/tr-rower-steady-15.mp4", "video_size": 39845888,
           "updated_at": "2025-12-01T00:00:00Z",
           "stages": [{"start": 0, "duration": 900, "target_resistance_level": 6}]}
        ]
        """#
}
