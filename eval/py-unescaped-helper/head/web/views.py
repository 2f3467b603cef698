from web.html import bold


def greeting(user):
    # bold() produces safe markup for the display name
    return f"<p>Welcome back, {bold(user.display_name)}!</p>"
