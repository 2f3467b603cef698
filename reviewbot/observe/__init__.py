"""Observability: metrics in Redis, the usage ledger, structured logs, the dashboard and their routes."""
