"""What the service keeps between jobs: remembered dismissals, prompt layouts and calibration, private files."""
