"""The GitHub App manifest flow: the manifest from app.yml, the /setup pages that create the App and the callback that
saves its credentials.
"""
