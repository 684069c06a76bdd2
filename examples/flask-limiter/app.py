"""Flask with Flask-Limiter: 3 SMS per hour per user, stored by winlimit.

Flask-Limiter keeps its limits in a storage of the `limits` library; importing winlimit.limits
registers winlimit+redis://, so switching from Redis's own storage is the URI.
Run: REDIS_URL=redis://127.0.0.1:6379 flask --app app run --port 8000 (in this folder).
"""

import os

from flask import Flask, request

# --8<-- [start:limit]
import winlimit.limits  # noqa: F401  (registers the winlimit+redis:// storage)
from flask_limiter import Limiter

app = Flask(__name__)
storage = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379").replace("redis://", "winlimit+redis://", 1)
limiter = Limiter(lambda: request.view_args["user"], app=app, storage_uri=storage,
                  strategy="moving-window", headers_enabled=True)


@app.post("/sms/<user>")
@limiter.limit("3 per hour")
def send_sms(user: str) -> dict[str, str]:
    return {"sent_to": user}
# --8<-- [end:limit]
