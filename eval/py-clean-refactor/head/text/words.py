from collections import Counter


def normalise(word):
    return word.lower().strip(".,!?")


def count_words(text):
    return dict(Counter(w for w in map(normalise, text.split()) if w))
