"""What people write to the App: the comment and review-thread command grammars (pure parsing, no I/O)."""
