"""FastAPI: 3 SMS per hour per user, a sliding hour on the server's clock.

Run: REDIS_URL=redis://127.0.0.1:6379 uvicorn app:app --port 8000 (in this folder).
The fourth POST /sms/{user} within an hour gets a 429 with Retry-After.
"""

import os

from fastapi import Depends, FastAPI, Request

# --8<-- [start:limit]
import redis.asyncio
import winlimit.asyncio
from winlimit.asgi import RateLimit

limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")))


def user_of(request: Request) -> str:
    return request.path_params["user"]


three_per_hour = RateLimit(limiter, lambda limits, key: limits.slide(key, 3_600_000, 3), key_func=user_of, prefix="sms:")
# --8<-- [end:limit]

app = FastAPI()


# --8<-- [start:route]
@app.post("/sms/{user}", dependencies=[Depends(three_per_hour)])
async def send_sms(user: str) -> dict[str, str]:
    return {"sent_to": user}
# --8<-- [end:route]
