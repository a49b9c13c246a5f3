from app.api import old_api_call, new_api_call


def order_total(quantity, price):
    return old_api_call(quantity) * price / 2


def refund(amount):
    return -old_api_call(amount) / 2
