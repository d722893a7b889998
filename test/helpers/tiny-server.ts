import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on 127.0.0.1 whose handler the test chooses. */
export async function tinyServer(
  handler: http.RequestListener,
): Promise<{ url: string; close(): Promise<void>; server: http.Server }> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
