"""The GitHub App: identity, API access and setup."""
