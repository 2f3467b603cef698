"""Comment commands: `@app review | full review | security-review | pause | resume | help` in a pull request."""
