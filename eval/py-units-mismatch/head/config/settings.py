# Every duration in this file is in milliseconds.
HTTP_TIMEOUT = 2500
RETRY_DELAY = 200
