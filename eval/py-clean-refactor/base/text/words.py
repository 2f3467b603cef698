def count_words(text):
    counts = {}
    for word in text.split():
        w = word.lower().strip(".,!?")
        if w:
            counts[w] = counts.get(w, 0) + 1
    return counts
