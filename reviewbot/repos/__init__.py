"""Repository trees on disk: the bounded cache of extracted base trees, safe tarball extraction, a cached tree as a
Snapshot, and local git changes for `reviewbot review`.
"""
