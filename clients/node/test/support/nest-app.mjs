// A NestJS application on @nestjs/platform-express with @nestjs/throttler deciding on
// winlimit, served on a free loopback port for the tests to call with fetch.
//
// Written without decorator syntax (which plain Node does not parse): each decorator is
// called as the function it is, as TypeScript's compiled output calls it, so the app is
// the one a TypeScript user writes and the tests need no compile step of their own.

import "reflect-metadata";
import { Controller, Get, Module, UseGuards } from "@nestjs/common";
import { APP_GUARD, NestFactory } from "@nestjs/core";
import { SkipThrottle, Throttle, ThrottlerGuard, ThrottlerModule } from "@nestjs/throttler";

/** Applies method decorators to `Class.prototype[name]`, as `@A() @B() name() {}` does. */
function decorateMethod(Class, name, ...decorators) {
  const descriptor = Object.getOwnPropertyDescriptor(Class.prototype, name);
  for (const decorator of decorators.reverse()) decorator(Class.prototype, name, descriptor);
}

/** The routes: `/` limited by every throttler, `/free` by none (@SkipThrottle for each),
 * `/strict` by `@Throttle` overrides, each answering its name. */
function controllerClass(throttlerNames, overrides) {
  class LimitedController {
    root() {
      return "root";
    }
    free() {
      return "free";
    }
    strict() {
      return "strict";
    }
  }
  decorateMethod(LimitedController, "root", Get("/"));
  decorateMethod(LimitedController, "free", Get("/free"), SkipThrottle(Object.fromEntries(throttlerNames.map((n) => [n, true]))));
  decorateMethod(LimitedController, "strict", Get("/strict"), Throttle(overrides));
  Controller()(LimitedController);
  return LimitedController;
}

/** A controller guarded on its own route only (`UseGuards`), not by a global guard. */
function guardedController() {
  class GuardedController {
    guarded() {
      return "guarded";
    }
  }
  decorateMethod(GuardedController, "guarded", Get("/guarded"), UseGuards(ThrottlerGuard));
  Controller()(GuardedController);
  return GuardedController;
}

/**
 * Serves an app whose ThrottlerModule has `throttlers` and `storage`; `global` (default
 * true) makes ThrottlerGuard an APP_GUARD, else only `/guarded` is limited. `overrides` is
 * the `@Throttle` of `/strict`. The tracker is the `x-client` request header, so each test's
 * clients are its own. Resolves to { url, get(path, client), close }.
 */
export async function nestApp({ throttlers, storage, global = true, overrides = { default: { limit: 1, ttl: 60_000 } } }) {
  const names = throttlers.map((t) => t.name ?? "default");
  class AppModule {}
  Module({
    imports: [ThrottlerModule.forRoot({ throttlers, storage, getTracker: (req) => String(req.headers["x-client"] ?? req.ip) })],
    controllers: global ? [controllerClass(names, overrides)] : [guardedController()],
    providers: global ? [{ provide: APP_GUARD, useClass: ThrottlerGuard }] : [],
  })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, "127.0.0.1");
  const url = `http://127.0.0.1:${app.getHttpServer().address().port}`;
  return {
    url,
    get: (path = "/", client = "c1") => fetch(url + path, { headers: { "x-client": client } }),
    close: () => app.close(),
  };
}
