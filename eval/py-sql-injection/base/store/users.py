import sqlite3


def connect(path):
    return sqlite3.connect(path)


def by_id(conn, user_id):
    return conn.execute("SELECT id, name FROM users WHERE id = ?", (user_id,)).fetchone()
