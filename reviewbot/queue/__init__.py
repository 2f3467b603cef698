"""The queue: arq settings and lifecycle, job ids and keys, renewed leases, retries, slots and the embedded Redis."""
