"""The fix loop's pure core: the model's edits, applied and checked, rendered as a commit or suggestions."""
