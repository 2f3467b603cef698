"""The context engine, second step: a read-only view of the base tree, which grammar reads a file, its symbols, an
index of who mentions what, what each change does to its symbols, and the selection of callers, callees, types and
tests (with excerpts) a careful reviewer would open.
"""
