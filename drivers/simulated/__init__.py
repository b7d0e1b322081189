"""Device doubles that speak the device side of the real wire protocol."""
