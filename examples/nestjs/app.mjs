// NestJS with @nestjs/throttler: 3 SMS per hour per user, counted by winlimit's storage.
// Run: REDIS_URL=redis://127.0.0.1:6379 PORT=8000 node app.mjs (after npm ci in examples/).
//
// Plain JavaScript, so it runs without a compile step: each decorator is called as the
// function it is, which is what TypeScript compiles `@Post("/sms/:user")` to.

import "reflect-metadata";
import { Controller, HttpCode, Module, Param, Post } from "@nestjs/common";
import { APP_GUARD, NestFactory } from "@nestjs/core";
import { ThrottlerGuard, ThrottlerModule } from "@nestjs/throttler";
import { createClient } from "redis";
import { Limiter } from "winlimit";
import { WinlimitThrottlerStorage } from "winlimit/nestjs";

const redis = await createClient({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" }).connect();

class SmsController {
  send(user) {
    return { sent_to: user };
  }
}
Param("user")(SmsController.prototype, "send", 0);
const send = Object.getOwnPropertyDescriptor(SmsController.prototype, "send");
HttpCode(200)(SmsController.prototype, "send", send);
Post("/sms/:user")(SmsController.prototype, "send", send);
Controller()(SmsController);

// --8<-- [start:module]
class AppModule {}
Module({
  imports: [
    ThrottlerModule.forRoot({
      throttlers: [{ ttl: 3_600_000, limit: 3 }],
      storage: new WinlimitThrottlerStorage(new Limiter(redis)),
      getTracker: (req) => req.params.user,
    }),
  ],
  controllers: [SmsController],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})(AppModule);
// --8<-- [end:module]

const app = await NestFactory.create(AppModule, { logger: ["error"] });
await app.listen(Number(process.env.PORT ?? 8000), "127.0.0.1");
console.log(`listening on ${await app.getUrl()}`);
