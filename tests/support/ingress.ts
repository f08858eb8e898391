// What the chart's Ingress does, for tests and the browser: `/api/agent/terminal/ws` upgrades go
// straight to the agent (the dashboard server handles no WebSocket, spec §1), every other
// request to the dashboard server. The upgrade's bytes are piped as they are, Host included,
// so the agent sees the browser's own origin as an Ingress would pass it.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface TestIngress {
  url: string;
  close(): Promise<void>;
}

const TERMINAL_PATH = '/api/agent/terminal/ws';

export async function startTestIngress(uiUrl: string, agentUrl: string): Promise<TestIngress> {
  const ui = new URL(uiUrl);
  const agent = new URL(agentUrl);
  const server: Server = createServer((req, res) => {
    const upstream = request({ host: ui.hostname, port: ui.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    if (!(req.url ?? '').startsWith(TERMINAL_PATH)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(agent.port), agent.hostname, () => {
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i] ?? ''}: ${req.rawHeaders[i + 1] ?? ''}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
