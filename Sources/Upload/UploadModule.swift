/// Placeholder until the module lands.
enum UploadModule {}
