// The ES module entry of winlimit/express-rate-limit: the CommonJS build re-exported.
export { WinlimitStore, infoOf } from "./express-rate-limit.js";
export type * from "./express-rate-limit.js";
