"""The `reviewbot` command: one module per command family, composed in `main`."""
