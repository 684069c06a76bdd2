// The ES module entry of winlimit/nestjs: the CommonJS build re-exported.
export { WinlimitThrottlerStorage, recordOf } from "./nestjs.js";
export type * from "./nestjs.js";
