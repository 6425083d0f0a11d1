"""The Celery application: Redis as broker and result backend, tuned so that no match is
lost when a worker dies and none is counted twice when it runs again."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_shutdown, worker_ready

from workers import metrics
from workers.settings import current

settings = current()

app = Celery(
    "arena", broker=settings.redis_url, backend=settings.redis_url, include=["workers.tasks"]
)
app.conf.update(
    # A task is acknowledged only when it has finished, and handed back to the queue if
    # the process running it dies: a killed worker's match is played again elsewhere.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    # One task at a time per process: a long match never holds others hostage.
    worker_prefetch_multiplier=1,
    broker_transport_options={
        "visibility_timeout": settings.visibility_timeout_s,
        "unacked_restore_interval": settings.unacked_restore_interval_s,
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": settings.restore_mutex_s,
    },
    result_backend_transport_options={"visibility_timeout": settings.visibility_timeout_s},
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_expires=7 * 24 * 3600,
    broker_connection_retry_on_startup=True,
    # Messages sent while Redis restarts (a finished match asking for the tournament's
    # finalisation) wait for it, as the store does (workers/tasks.py).
    task_publish_retry_policy={
        "max_retries": 30,
        "interval_start": 0.2,
        "interval_step": 0.5,
        "interval_max": 5.0,
    },
    worker_hijack_root_logger=False,
)


@worker_ready.connect
def _say_ready(sender: Any = None, **_: Any) -> None:
    from workers import watchdog  # it needs the tasks, which need this app

    watchdog.start(sender.hostname, int(sender.controller.concurrency))
    # The line process supervisors (the demo, the tests) wait for.
    print(f"arena worker ready as {sender.hostname}", flush=True)


@worker_process_shutdown.connect
def _forget_metrics(pid: int | None = None, **_: Any) -> None:
    metrics.forget_process(pid or os.getpid())
