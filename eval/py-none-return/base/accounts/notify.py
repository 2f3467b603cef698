from accounts.repo import find_user


def send(mailer, user_id, text):
    mailer.deliver(user_id, text)
