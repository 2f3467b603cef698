"""ASGI intake: verify, parse, enqueue, answer."""
