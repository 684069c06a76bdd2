// The ES module entry of winlimit/fastify: the CommonJS build re-exported.
export { remoteAddress, winlimitHook, winlimitPlugin } from "./fastify.js";
export type * from "./fastify.js";
