/// Capture formats (SPEC §8). Placeholder until the readers land.
enum CaptureModule {}
