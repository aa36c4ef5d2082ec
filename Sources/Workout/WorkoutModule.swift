/// The workout engine (SPEC §5). Placeholder until the engine lands.
enum WorkoutModule {}
