def old_api_call(value):
    """Deprecated: use new_api_call."""
    return value * 2


def new_api_call(value):
    return value * 2
