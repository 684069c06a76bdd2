// The one readiness deadline of the Node test tree. A wait for a server, a cluster, a
// reconnection or an application to become ready is not a claim about speed: on a loaded
// 2-core CI machine a first sync or a reconnect can take several seconds. Every such wait
// polls until READY_TIMEOUT_MS; what a test asserts about a decision, a count or a time stays
// exact.

export const READY_TIMEOUT_MS = 60_000;

// The one call deadline of the tests whose subject is not a timeout: the limiters and the
// middlewares they build. The clients' 1 s default is a claim about a healthy server's speed,
// which a loaded CI machine breaks now and then; these tests assert decisions, not speed.
// Tests where Redis hangs on purpose set their own short timeoutMs.
export const CALL_DEADLINE_MS = 10_000;

/**
 * Polls `probe` (sync or async) every `everyMs` until it returns something truthy, and
 * resolves to that value; a probe that throws counts as not ready. Rejects after
 * READY_TIMEOUT_MS, naming `what` and the probe's last error.
 */
export async function waitUntil(probe, what, everyMs = 10) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${READY_TIMEOUT_MS} ms waiting for ${what}${lastError ? `: ${lastError}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
