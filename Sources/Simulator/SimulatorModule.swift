/// The BlueZ + machine simulator. Placeholder until it lands.
enum SimulatorModule {}
