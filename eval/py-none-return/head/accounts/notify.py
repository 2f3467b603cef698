from accounts.repo import find_user


def send(mailer, user_id, text):
    user = find_user(user_id)
    mailer.deliver(user.email, text)
