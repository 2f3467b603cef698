"""Publishing, last step of the pure core: which findings get posted (dedup, incremental, caps, annotations),
```suggestion applicability, secret redaction, and the Markdown of comments, the review body and the check run.
"""
