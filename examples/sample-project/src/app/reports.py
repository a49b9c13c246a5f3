from app.api import old_api_call, new_api_call


def weekly(values):
    return [old_api_call(v) for v in values]
