"""Planted cross-file flaws in real releases from PyPI, and the ideal stand-in that judges an audit's requests."""
