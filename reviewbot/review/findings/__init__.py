"""The findings, fourth step: the schema the model answers in, security tags, extra passes merged by fingerprint, the
verification pass, anchoring to lines GitHub accepts, and the fingerprints that keep re-reviews from repeating
themselves.
"""
