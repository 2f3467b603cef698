def page(items, number, size=20):
    """Items of page `number` (1-based)."""
    return items[(number - 1) * size:number * size]
