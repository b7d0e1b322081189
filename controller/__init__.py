"""The dealer station's table controller: rules, procedure, journal, daemon and CLI."""
