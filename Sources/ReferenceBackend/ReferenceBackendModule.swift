/// Placeholder until the module lands.
enum ReferenceBackendModule {}
