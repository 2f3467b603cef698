import time


def run(tasks):
    done = 0
    for task in tasks:
        task()
        done += 1
    return done
