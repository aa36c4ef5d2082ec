/// The metrics socket (SPEC §7). Placeholder until it lands.
enum PublishModule {}
