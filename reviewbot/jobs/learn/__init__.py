"""Rule proposals (issue 35 §2): after a dismissal is recorded and after a closed pull request's outcomes are
counted, the repository's patterns are found again and each new one is queued as one `propose_rule` job."""
