"""Calls to the card processor."""

from payments.client import post


def charge(amount_cents, currency):
    """Charge the card on file; amounts are in cents."""
    return post("/charges", {"amount": amount_cents, "currency": currency})


def refund(charge_id):
    return post(f"/charges/{charge_id}/refund", {})
