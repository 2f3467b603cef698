"""Rules learnt in the open: patterns in what people did with findings (dismissals, low resolution rates, 👎),
each proposed as a change to the repository's `.github/reviewbot.yml` in a pull request the team reviews (pure)."""
