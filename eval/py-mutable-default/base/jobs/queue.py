def enqueue(job, queue=None):
    if queue is None:
        queue = []
    queue.append(job)
    return queue
