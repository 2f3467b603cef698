"""Outcome records written where outcomes happen: a review posts findings and resolves fixed ones, a thread
command dismisses one, and the `closed` job decides the rest when the pull request closes."""
