import logging
import time

log = logging.getLogger(__name__)


def run(tasks):
    done = 0
    started = time.monotonic()
    for task in tasks:
        task()
        done += 1
    log.info("ran %d tasks in %.1fs", done, time.monotonic() - started)
    return done
