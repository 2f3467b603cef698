"""Linked issues: the references a pull request makes, and the issues' text for the prompt (pure)."""
