"""The simulated table: a dealer and players who follow the panel as people would."""
