// The ES module entry of winlimit/metrics: the CommonJS build re-exported.
export { Metrics } from "./metrics.js";
export type * from "./metrics.js";
