"""arq worker, review jobs and the embedded Redis."""
