"""The diff, first step of a review: unified diffs parsed into files, hunks and commentable lines, each chunk's
extended header, a changed file's new text, and the filters that say which files are not worth reviewing.
"""
