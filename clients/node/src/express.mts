// The ES module entry of winlimit/express: the CommonJS build re-exported.
export { rateLimit, remoteAddress } from "./express.js";
export type * from "./express.js";
