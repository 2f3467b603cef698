def enqueue(job, queue=[]):
    queue.append(job)
    return queue
