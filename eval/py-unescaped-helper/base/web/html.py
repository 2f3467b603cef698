"""Small HTML helpers."""


def bold(text):
    return f"<b>{text}</b>"


def link(url, label):
    return f'<a href="{url}">{label}</a>'
