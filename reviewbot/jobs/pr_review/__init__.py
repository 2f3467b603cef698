"""The review job: a pull request through the pipeline to one review and one check run."""
