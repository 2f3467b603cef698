"""Security audits of whole repositories: the plan (call graph, chunks, shared prefix, estimate), merging candidates
across chunks before verification, incremental selection, and `reviewbot audit`, which runs it through the
provider's queue and writes the report.
"""
