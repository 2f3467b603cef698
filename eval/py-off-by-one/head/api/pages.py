def page(items, number, size=20):
    """Items of page `number` (1-based)."""
    start = (number - 1) * size
    end = start + size - 1
    return items[start:end]
