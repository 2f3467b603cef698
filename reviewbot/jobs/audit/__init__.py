"""Security audits as a service: a planning job, one job per chunk, a finishing job, state in Redis."""
