// A small TCP proxy of the tests' own in front of a redis-server: it passes bytes both ways
// and counts, in what the client sends, the occurrences of a marker (a key), so a test can
// tell how many calls were sent even while the server is stopped and cannot count them.

import net from "node:net";

export class CountingProxy {
  static async start(upstreamPort, marker) {
    const proxy = new CountingProxy();
    proxy.marker = Buffer.from(marker);
    proxy.sent = 0;
    proxy.sockets = new Set();
    proxy.server = net.createServer((client) => proxy.#pipe(client, upstreamPort));
    await new Promise((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    proxy.port = proxy.server.address().port;
    return proxy;
  }

  #pipe(client, upstreamPort) {
    const upstream = net.connect(upstreamPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => {});
    }
    // A marker split across two chunks is still counted once: the tail is kept.
    let tail = Buffer.alloc(0);
    client.on("data", (chunk) => {
      const seen = Buffer.concat([tail, chunk]);
      for (let at = seen.indexOf(this.marker); at !== -1; at = seen.indexOf(this.marker, at + this.marker.length)) this.sent++;
      tail = seen.subarray(Math.max(0, seen.length - this.marker.length + 1));
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  }

  async close() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
