"""Hardware abstraction interfaces and their real and simulated implementations."""
