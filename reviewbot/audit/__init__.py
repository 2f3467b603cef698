"""Security audits of whole repositories: the plan (call graph, chunks, shared prefix, estimate), merging candidates
across chunks before verification, incremental selection, findings as SARIF for code scanning (or the tracking
issue), `service_state` and `service_record` (the service's audits in Redis, their record typed; its jobs are in
`reviewbot.jobs.audit`), and `reviewbot audit`, which runs a local audit through the provider's queue and writes the
report.
"""
