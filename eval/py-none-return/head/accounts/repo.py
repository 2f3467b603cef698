USERS = {}


def find_user(user_id):
    """The user, or None when there is no such user."""
    return USERS.get(user_id)
