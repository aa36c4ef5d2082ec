/// The reference backend's three default trainings (`Sources/ReferenceBackend/Domain/
/// DefaultTrainings.swift`), copied so that a change there cannot quietly change what these
/// tests expect.
enum DefaultTrainingsFixture {
    /// As `GET /trainings` answers.
    static let envelope = #"{"trainings": \#(list)}"#

    /// As the store caches it: the bare list, keys sorted by the uploader's re-encoding.
    static let list = #"""
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
