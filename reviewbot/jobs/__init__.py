"""The worker's jobs, one package per kind of work (audits: plan, chunks, finish)."""
