from payments.gateway import charge


def complete(order):
    receipt = charge(order.total_cents, order.currency)
    order.mark_paid(receipt["id"])
    return receipt
