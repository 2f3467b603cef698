"""`reviewbot audit`: a whole repository reviewed as a series of chunked reviews (which files, in which chunks), its
report, and the command that runs it through the provider's queue; `service_state` keeps the service's audits
in Redis (its jobs are in `reviewbot.jobs.audit`).
"""
