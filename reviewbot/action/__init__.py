"""`reviewbot action`: one review inside a GitHub Actions job, with the workflow's token and no server or Redis."""
