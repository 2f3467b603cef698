"""Pure tests of reviewbot/eval."""
