"""Calls to the card processor."""

from payments.client import post


def charge(amount_cents, currency, idempotency_key):
    """Charge the card on file; amounts are in cents."""
    payload = {"amount": amount_cents, "currency": currency}
    return post("/charges", {**payload, "idempotency_key": idempotency_key})


def refund(charge_id):
    return post(f"/charges/{charge_id}/refund", {})
