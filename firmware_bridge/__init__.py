"""The wire protocol between the station and device firmware (sans-I/O)."""
