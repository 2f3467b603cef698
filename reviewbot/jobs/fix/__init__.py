"""Fixes for a pull request's findings: asked in a review thread, a pull request comment or the check run's button."""
