"""reviewbot: a self-hosted GitHub App that reviews pull requests with a hosted model."""
