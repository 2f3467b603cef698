from web.html import bold


def greeting(user):
    return "<p>Welcome back!</p>"
